package bench

import (
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The circuit-breaker cases: a closed runtime/degrade breaker alone, and
// with one admitting flow rule on the same resource (the full target: at
// most 1.5x BenchmarkRateAllow and one allocation), to be read against
// BenchmarkGobreakerExecute.
const (
	resBreaker             = "bench-breaker"
	resBreakerParallel     = "bench-breaker-parallel"
	resFlowBreaker         = "bench-flow-breaker"
	resFlowBreakerParallel = "bench-flow-breaker-parallel"
)

// closedBreaker is a slow-request rule whose maximum RT is an hour: its
// breaker counts every call and never opens.
func closedBreaker(resource string) degrade.Rule {
	return degrade.Rule{Resource: resource, Grade: degrade.SlowRequestRatio, Count: 3_600_000,
		SlowRatioThreshold: 1, TimeWindow: 10}
}

func loadBreakers(b *testing.B) {
	b.Helper()
	err := degrade.LoadRules([]degrade.Rule{
		closedBreaker(resBreaker), closedBreaker(resBreakerParallel),
		closedBreaker(resFlowBreaker), closedBreaker(resFlowBreakerParallel),
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = degrade.LoadRules(nil) })
}

func loadFlowAndBreakers(b *testing.B) {
	b.Helper()
	loadBreakers(b)
	err := flow.LoadRules([]flow.Rule{
		{Resource: resFlowBreaker, Grade: flow.GradeQPS, Count: admitting},
		{Resource: resFlowBreakerParallel, Grade: flow.GradeQPS, Count: admitting},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = flow.LoadRules(nil) })
}

func BenchmarkEntryExitBreaker(b *testing.B) {
	loadBreakers(b)
	benchEntryExit(b, resBreaker)
}

func BenchmarkEntryExitBreakerParallel(b *testing.B) {
	loadBreakers(b)
	benchEntryExitParallel(b, resBreakerParallel)
}

func BenchmarkEntryExitFlowQPSAndBreaker(b *testing.B) {
	loadFlowAndBreakers(b)
	benchEntryExit(b, resFlowBreaker)
}

func BenchmarkEntryExitFlowQPSAndBreakerParallel(b *testing.B) {
	loadFlowAndBreakers(b)
	benchEntryExitParallel(b, resFlowBreakerParallel)
}
