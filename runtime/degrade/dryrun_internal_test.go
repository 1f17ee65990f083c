package degrade

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// Concurrent calls through a dry-run breaker that keeps opening, probing
// and closing: every call it refused is forgotten at its exit, and the
// rule switched to enforcing mid-run changes nothing of that.
func TestDryRunBreakerConcurrentForgetsEveryRefusal(t *testing.T) {
	clk := clocktest.Install(t)
	const res = "degrade.dryrun.concurrent"
	rule := Rule{Resource: res, Grade: ErrorCount, Count: 1, TimeWindow: 1, MinRequestAmount: 1, StatIntervalMs: 1000, DryRun: true}
	require.NoError(t, LoadRules([]Rule{rule}))
	t.Cleanup(func() { _ = LoadRules(nil) })
	b := current.Load().exact[res][0]

	boom := errors.New("boom")
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 400 {
				e, blk := runtime.Entry(context.Background(), res)
				if blk != nil {
					continue // enforcing while switched
				}
				if (g+i)%3 == 0 {
					e.Exit(runtime.WithError(boom))
				} else {
					e.Exit()
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 40 {
			clk.Advance(300 * time.Millisecond)
			if i == 20 {
				r := rule
				r.DryRun = false
				_ = LoadRules([]Rule{r})
			}
			if i == 25 {
				_ = LoadRules([]Rule{rule})
			}
		}
	})
	wg.Wait()
	assert.Same(t, b, current.Load().exact[res][0], "switching kept the breaker")
	assert.Zero(t, b.refused.Len(), "every refused call was forgotten at its exit")
	assert.Positive(t, runtime.LookupResource(res).DryRunBlockCount(runtime.BlockDegrade))
}
