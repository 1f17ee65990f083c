package bench

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// The Ticket cases: the same calls as the Entry cases above, opened with
// Resource.Enter, which reuses the entries of exited calls and allocates
// nothing.

func enterExit(b *testing.B, r *runtime.Resource, ctx context.Context) bool {
	t, blk := r.Enter(ctx)
	if blk != nil {
		b.Error(blk)
		return false
	}
	t.Exit()
	return true
}

func benchEnterExit(b *testing.B, resource string) { benchCalls(b, resource, enterExit) }

func benchEnterExitParallel(b *testing.B, resource string) {
	benchCallsParallel(b, resource, enterExit)
}

func BenchmarkEnterExitNoRules(b *testing.B) { benchEnterExit(b, resNoRules) }

func BenchmarkEnterExitNoRulesParallel(b *testing.B) { benchEnterExitParallel(b, resNoRulesParallel) }

func BenchmarkEnterExitFlowQPS(b *testing.B) {
	loadFlowRules(b)
	benchEnterExit(b, resFlow)
}

func BenchmarkEnterExitFlowQPSParallel(b *testing.B) {
	loadFlowRules(b)
	benchEnterExitParallel(b, resFlowParallel)
}

func BenchmarkEnterExitFlowQPSAndBreaker(b *testing.B) {
	loadFlowAndBreakers(b)
	benchEnterExit(b, resFlowBreaker)
}

func BenchmarkEnterExitFlowQPSAndBreakerParallel(b *testing.B) {
	loadFlowAndBreakers(b)
	benchEnterExitParallel(b, resFlowBreakerParallel)
}
