package bench

import (
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The concurrency-limit cases, read side by side: an adaptive rule (its
// limit never reached: a compare-and-swap on entry, a decrement and an add on
// exit) against a thread-grade flow rule (Java's fixed thread limit, read
// from the resource's thread count).
const (
	resAdaptive               = "bench-adaptive"
	resAdaptiveParallel       = "bench-adaptive-parallel"
	resFlowThreads            = "bench-flow-threads"
	resFlowThreadsParallel    = "bench-flow-threads-parallel"
	benchAdaptiveLimit        = 1 << 20
	benchFlowThreadsUnreached = admitting
)

func loadAdaptive(b *testing.B) {
	b.Helper()
	rule := func(resource string) adaptive.Rule {
		return adaptive.Rule{Resource: resource, MinLimit: benchAdaptiveLimit, MaxLimit: benchAdaptiveLimit}
	}
	if err := adaptive.LoadRules([]adaptive.Rule{rule(resAdaptive), rule(resAdaptiveParallel)}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = adaptive.LoadRules(nil) })
}

func loadFlowThreads(b *testing.B) {
	b.Helper()
	err := flow.LoadRules([]flow.Rule{
		{Resource: resFlowThreads, Grade: flow.GradeThread, Count: benchFlowThreadsUnreached},
		{Resource: resFlowThreadsParallel, Grade: flow.GradeThread, Count: benchFlowThreadsUnreached},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = flow.LoadRules(nil) })
}

func BenchmarkEntryExitAdaptive(b *testing.B) {
	loadAdaptive(b)
	benchEntryExit(b, resAdaptive)
}

func BenchmarkEntryExitAdaptiveParallel(b *testing.B) {
	loadAdaptive(b)
	benchEntryExitParallel(b, resAdaptiveParallel)
}

func BenchmarkEntryExitFlowThreads(b *testing.B) {
	loadFlowThreads(b)
	benchEntryExit(b, resFlowThreads)
}

func BenchmarkEntryExitFlowThreadsParallel(b *testing.B) {
	loadFlowThreads(b)
	benchEntryExitParallel(b, resFlowThreadsParallel)
}
