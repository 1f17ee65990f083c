package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"testing"

	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The growth cases: Entry+Exit with one admitting flow rule and one closed
// breaker per resource, as the number of resources called round robin, the
// number of rules on a resource, and the number of goroutines grow. A call
// must cost the same however many resources and rules exist. The
// resources cases also report the heap each resource holds once called
// (B/resource), from 1,000 resources on, in their first run:
//
//	go test ./bench -run x -bench Scale -benchmem -count 8 | benchstat -col /resources -
//
// The resources cases share their resources (1+100+1,000+3,000+6,000 of
// them): one process keeps at most 2 x MaxResources declared resources, and
// a case past that would measure the overflow resource instead.

// flowAndBreaker loads, for each resource, an admitting QPS rule and a
// closed breaker, plus extra admitting QPS rules per resource.
func flowAndBreaker(b *testing.B, resources []string, extraRules int) {
	b.Helper()
	var fr []flow.Rule
	var dr []degrade.Rule
	for _, r := range resources {
		for range 1 + extraRules {
			fr = append(fr, flow.Rule{Resource: r, Grade: flow.GradeQPS, Count: admitting})
		}
		dr = append(dr, closedBreaker(r))
	}
	if err := flow.LoadRules(fr); err != nil {
		b.Fatal(err)
	}
	if err := degrade.LoadRules(dr); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = flow.LoadRules(nil)
		_ = degrade.LoadRules(nil)
	})
}

func BenchmarkScaleResources(b *testing.B) { scaleResources(b, entryExit, false) }

// BenchmarkScaleResourcesEnter is the same, with calls opened by
// Resource.Enter (no allocation).
func BenchmarkScaleResourcesEnter(b *testing.B) { scaleResources(b, enterExit, false) }

// BenchmarkScaleResourcesShuffled is BenchmarkScaleResourcesEnter with the
// resources called in a fixed random order, each once a round. In the
// order they were made, as the other cases call them, each kind of object
// a call reads is read at ascending addresses, which the processor's
// prefetchers stream in; traffic seldom comes in that order.
func BenchmarkScaleResourcesShuffled(b *testing.B) { scaleResources(b, enterExit, true) }

func scaleResources(b *testing.B, call func(*testing.B, *runtime.Resource, context.Context) bool, shuffle bool) {
	for _, n := range []int{1, 100, 1000, 3000, 6000} {
		b.Run(fmt.Sprintf("resources=%d", n), func(b *testing.B) {
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprintf("bench-scale-%d-%d", n, i)
			}
			// Measured on the first run only: later ones (-count) find
			// the resources made.
			fresh := runtime.LookupResource(names[0]) == nil
			before := liveHeap()
			res := make([]*runtime.Resource, n)
			for i := range names {
				res[i] = runtime.Declare(runtime.ResourceSpec{Name: names[i]})
			}
			flowAndBreaker(b, names, 0)
			ctx := context.Background()
			for _, r := range res { // bind every chain before timing
				call(b, r, ctx)
			}
			held := liveHeap() - before
			if res[n-1].Name() != names[n-1] {
				b.Fatalf("resource %s counted on %s", names[n-1], res[n-1].Name())
			}
			if shuffle {
				rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { res[i], res[j] = res[j], res[i] })
			}
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			i := 0
			for b.Loop() {
				if !call(b, res[i], ctx) {
					return
				}
				if i++; i == n {
					i = 0
				}
			}
			stop()
			if fresh && n >= 1000 { // fewer are lost in the heap's noise
				b.ReportMetric(float64(held)/float64(n), "B/resource")
			}
		})
	}
}

// liveHeap is the heap's live bytes after a collection: what a resource
// holds, its rules' state, nodes and windows included, once called.
func liveHeap() int64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

func BenchmarkScaleRules(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			name := fmt.Sprintf("bench-scale-rules-%d", n)
			flowAndBreaker(b, []string{name}, n-1)
			benchEntryExit(b, name)
		})
	}
}

func BenchmarkScaleGoroutines(b *testing.B) {
	for _, n := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			name := fmt.Sprintf("bench-scale-goroutines-%d", n)
			flowAndBreaker(b, []string{name}, 0)
			b.SetParallelism(n) // n goroutines per GOMAXPROCS
			benchEntryExitParallel(b, name)
		})
	}
}
