package degrade_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHalfOpenBreakerAdmitsExactlyOneProbe(t *testing.T) {
	clk := setup(t)
	const res = "one-probe"
	load(t, degrade.Rule{Resource: res, Grade: degrade.ErrorCount, Count: 0, TimeWindow: 1, MinRequestAmount: 1})
	for round := range 20 {
		require.True(t, call(clk, res, 0, errBusiness), "round %d: open it", round)
		require.Equal(t, degrade.Open, state(t, res, 0))
		clk.Advance(time.Second)

		const n = 32
		var admitted atomic.Int32
		var probe *runtime.SentinelEntry
		var mu sync.Mutex
		var start, done sync.WaitGroup
		start.Add(1)
		for range n {
			done.Add(1)
			go func() {
				defer done.Done()
				start.Wait()
				e, b := runtime.Entry(context.Background(), res)
				if b == nil {
					admitted.Add(1)
					mu.Lock()
					probe = e
					mu.Unlock()
				}
			}()
		}
		start.Done()
		done.Wait()
		require.Equal(t, int32(1), admitted.Load(), "round %d", round)
		assert.Equal(t, degrade.HalfOpen, state(t, res, 0))
		probe.Exit()
		require.Equal(t, degrade.Closed, state(t, res, 0))
	}
}

func TestConcurrentCallsAndReloadsAreRaceFree(t *testing.T) {
	clk := setup(t)
	rules := []degrade.Rule{
		{Resource: "race-a", Grade: degrade.ErrorRatio, Count: 0.5, TimeWindow: 1, MinRequestAmount: 1},
		{Resource: "race-.*", Regex: true, Grade: degrade.SlowRequestRatio, Count: 1, SlowRatioThreshold: 0.5, TimeWindow: 1},
		{Resource: "*", Grade: degrade.ErrorCount, Count: 3, TimeWindow: 1},
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				res := [...]string{"race-a", "race-b", "other"}[(g+i)%3]
				e, b := runtime.Entry(context.Background(), res)
				if b == nil {
					if i%3 == 0 {
						e.SetError(errBusiness)
					}
					e.Exit()
				}
				if i%50 == 0 {
					clk.Advance(300 * time.Millisecond)
				}
			}
		}()
	}
	for i := range 50 {
		require.NoError(t, degrade.LoadRules(rules[:1+i%3]))
		_ = degrade.Breakers()
	}
	wg.Wait()
}
