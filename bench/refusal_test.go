package bench

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The refusal cases: Entry of a resource whose flow rule (count 0) or
// open breaker refuses every call, to be read against EntryExitFlowQPS, the
// admitted call. A refusal must cost less than an admission: under
// overload most calls are refused.
const (
	resRefusedFlow            = "bench-refused-flow"
	resRefusedFlowParallel    = "bench-refused-flow-parallel"
	resRefusedBreaker         = "bench-refused-breaker"
	resRefusedBreakerParallel = "bench-refused-breaker-parallel"
)

func loadRefusingRules(b *testing.B) {
	b.Helper()
	err := flow.LoadRules([]flow.Rule{
		{Resource: resRefusedFlow, Grade: flow.GradeQPS, Count: 0},
		{Resource: resRefusedFlowParallel, Grade: flow.GradeQPS, Count: 0},
	})
	if err != nil {
		b.Fatal(err)
	}
	// An error-count breaker whose threshold one error reaches, opened by
	// a failing call before timing.
	open := func(resource string) degrade.Rule {
		return degrade.Rule{Resource: resource, Grade: degrade.ErrorCount, Count: 1,
			MinRequestAmount: 1, StatIntervalMs: 60_000, TimeWindow: 3600}
	}
	if err := degrade.LoadRules([]degrade.Rule{open(resRefusedBreaker), open(resRefusedBreakerParallel)}); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{resRefusedBreaker, resRefusedBreakerParallel} {
		for range 3 {
			if e, blk := runtime.Entry(context.Background(), name); blk == nil {
				e.SetError(context.DeadlineExceeded)
				e.Exit()
			}
		}
	}
	b.Cleanup(func() {
		_ = flow.LoadRules(nil)
		_ = degrade.LoadRules(nil)
	})
}

// refused is one refused call through a declared resource handle.
func refused(b *testing.B, r *runtime.Resource, ctx context.Context) bool {
	e, blk := r.Entry(ctx)
	if blk == nil {
		e.Exit()
		b.Error("admitted")
		return false
	}
	return true
}

func benchRefused(b *testing.B, resource string) {
	loadRefusingRules(b)
	benchCalls(b, resource, refused)
}

func benchRefusedParallel(b *testing.B, resource string) {
	loadRefusingRules(b)
	benchCallsParallel(b, resource, refused)
}

func BenchmarkEntryRefusedFlow(b *testing.B) { benchRefused(b, resRefusedFlow) }

func BenchmarkEntryRefusedFlowParallel(b *testing.B) {
	benchRefusedParallel(b, resRefusedFlowParallel)
}

func BenchmarkEntryRefusedBreaker(b *testing.B) { benchRefused(b, resRefusedBreaker) }

func BenchmarkEntryRefusedBreakerParallel(b *testing.B) {
	benchRefusedParallel(b, resRefusedBreakerParallel)
}

// The refusals again, with calls opened by Enter: no entry at all.

func enterRefused(b *testing.B, r *runtime.Resource, ctx context.Context) bool {
	t, blk := r.Enter(ctx)
	if blk == nil {
		t.Exit()
		b.Error("admitted")
		return false
	}
	return true
}

func BenchmarkEnterRefusedFlow(b *testing.B) {
	loadRefusingRules(b)
	benchCalls(b, resRefusedFlow, enterRefused)
}

func BenchmarkEnterRefusedFlowParallel(b *testing.B) {
	loadRefusingRules(b)
	benchCallsParallel(b, resRefusedFlowParallel, enterRefused)
}
