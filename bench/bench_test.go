package bench

import (
	"context"
	"testing"

	"github.com/sony/gobreaker/v2"
	"golang.org/x/time/rate"

	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// Resources of the runtime cases; each case has its own, so that one
// case's statistics never slow another's.
const (
	resNoRules         = "bench-no-rules"
	resNoRulesParallel = "bench-no-rules-parallel"
	resFlow            = "bench-flow-qps"
	resFlowParallel    = "bench-flow-qps-parallel"
)

// admitting is a count no benchmark reaches in a second.
const admitting = 1e12

func loadFlowRules(b *testing.B) {
	b.Helper()
	err := flow.LoadRules([]flow.Rule{
		{Resource: resFlow, Grade: flow.GradeQPS, Count: admitting},
		{Resource: resFlowParallel, Grade: flow.GradeQPS, Count: admitting},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = flow.LoadRules(nil) })
}

// --- golang.org/x/time/rate: the yardstick ---

func newLimiter() *rate.Limiter { return rate.NewLimiter(rate.Limit(admitting), 1<<30) }

func BenchmarkRateAllow(b *testing.B) {
	l := newLimiter()
	b.ReportAllocs()
	defer webtest.CPUTimer(b)()
	for b.Loop() {
		if !l.Allow() {
			b.Fatal("refused")
		}
	}
}

func BenchmarkRateAllowParallel(b *testing.B) {
	l := newLimiter()
	b.ReportAllocs()
	defer webtest.CPUTimer(b)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if !l.Allow() {
				b.Error("refused")
				return
			}
		}
	})
}

// --- github.com/sony/gobreaker/v2 ---

func newBreaker() *gobreaker.CircuitBreaker[int] {
	return gobreaker.NewCircuitBreaker[int](gobreaker.Settings{Name: "bench"})
}

func succeed() (int, error) { return 1, nil }

func BenchmarkGobreakerExecute(b *testing.B) {
	cb := newBreaker()
	b.ReportAllocs()
	defer webtest.CPUTimer(b)()
	for b.Loop() {
		if _, err := cb.Execute(succeed); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGobreakerExecuteParallel(b *testing.B) {
	cb := newBreaker()
	b.ReportAllocs()
	defer webtest.CPUTimer(b)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := cb.Execute(succeed); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// --- runtime.Entry + Exit ---

// entryExit is one protected call through a declared resource handle, as
// generated wrappers make it.
func entryExit(b *testing.B, r *runtime.Resource, ctx context.Context) bool {
	e, blk := r.Entry(ctx)
	if blk != nil {
		b.Error(blk)
		return false
	}
	e.Exit()
	return true
}

// benchCalls runs call, one protected call (entryExit or enterExit),
// through the declared resource named resource.
func benchCalls(b *testing.B, resource string, call func(*testing.B, *runtime.Resource, context.Context) bool) {
	r := runtime.Declare(runtime.ResourceSpec{Name: resource})
	ctx := context.Background()
	b.ReportAllocs()
	defer webtest.CPUTimer(b)()
	for b.Loop() {
		if !call(b, r, ctx) {
			return
		}
	}
}

// benchCallsParallel is benchCalls from GOMAXPROCS goroutines.
func benchCallsParallel(b *testing.B, resource string, call func(*testing.B, *runtime.Resource, context.Context) bool) {
	r := runtime.Declare(runtime.ResourceSpec{Name: resource})
	ctx := context.Background()
	b.ReportAllocs()
	defer webtest.CPUTimer(b)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if !call(b, r, ctx) {
				return
			}
		}
	})
}

func benchEntryExit(b *testing.B, resource string) { benchCalls(b, resource, entryExit) }

func benchEntryExitParallel(b *testing.B, resource string) {
	benchCallsParallel(b, resource, entryExit)
}

func BenchmarkEntryExitNoRules(b *testing.B) { benchEntryExit(b, resNoRules) }

func BenchmarkEntryExitNoRulesParallel(b *testing.B) { benchEntryExitParallel(b, resNoRulesParallel) }

// One admitting Direct Reject QPS rule, at most one allocation.
func BenchmarkEntryExitFlowQPS(b *testing.B) {
	loadFlowRules(b)
	benchEntryExit(b, resFlow)
}

func BenchmarkEntryExitFlowQPSParallel(b *testing.B) {
	loadFlowRules(b)
	benchEntryExitParallel(b, resFlowParallel)
}

// --- circuit breakers: see degrade_test.go ---
