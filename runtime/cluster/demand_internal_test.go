package cluster

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The fallback share follows the fleet's demand as the last answered
// heartbeat saw it, never below a quarter of an even share, and is an
// even share until a fleet's demand was seen.
func TestFallbackCountFollowsDemand(t *testing.T) {
	for _, tc := range []struct {
		name        string
		live        int64
		mine, fleet float64 // 0 fleet: no heartbeat saw demand
		want        float64
	}{
		{"the busiest of 400, 200 and 40 calls a second takes 400/640", 3, 400, 640, 300 * 400.0 / 640},
		{"the quietest takes a quarter of an even share, not 40/640", 3, 40, 640, 300.0 / 12},
		{"an idle instance still serves a quarter of an even share", 3, 0, 640, 300.0 / 12},
		{"no demand seen yet: an even share", 3, 0, 0, 100},
		{"never reached Redis: the whole count", 0, 0, 0, 300},
		{"alone in the fleet: the whole count", 1, 50, 50, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{}
			c.live.Store(tc.live)
			var d demand
			d.seeFleet(tc.mine, tc.fleet)
			assert.InDelta(t, tc.want, c.fallbackCount(&d, 300), 1e-9)
		})
	}
}

// Shares of an uneven fleet add up to between one and 1.25 of the count:
// the fleet's fallback stays within 0.9x-1.25x of its limit.
func TestFallbackSharesAddUpToTheCount(t *testing.T) {
	for _, demands := range [][]float64{{400, 200, 40}, {1000, 1, 1}, {100, 100, 100}, {0, 0, 500}} {
		var fleet float64
		for _, d := range demands {
			fleet += d
		}
		var sum float64
		for _, mine := range demands {
			c := &Client{}
			c.live.Store(int64(len(demands)))
			var d demand
			d.seeFleet(mine, fleet)
			sum += c.fallbackCount(&d, 300)
		}
		assert.GreaterOrEqual(t, sum, 300.0-1e-9, "%v", demands)
		assert.LessOrEqual(t, sum, 300*1.25, "%v", demands)
	}
}

// A lease is sized from demand: over the threshold, the instance's share
// of it, final; under, 1.5x its own demand, not final; before any demand
// was measured, half its recent demand within an even share.
func TestLeaseBatchFollowsDemand(t *testing.T) {
	for _, tc := range []struct {
		name        string
		mine, fleet float64 // calls a second; fleet 0: not measured
		inWindow    int64
		wantAllot   float64
		wantNeed    int64
		wantFinal   bool
	}{
		{"fleet over the limit: the share of 300, final", 400, 640, 0, 300 * 400.0 / 640, 1, true},
		{"fleet under the limit: 1.5x the own demand", 100, 200, 0, 150, 1, false},
		{"fleet under the limit, own demand tiny: the cold estimate", 0, 200, 40, 20, 1, false},
		{"not measured: half the window's demand", 0, 0, 60, 0, 30, false},
		{"not measured: within an even share", 0, 0, 1000, 0, 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{}
			c.live.Store(3)
			ls := &leases{}
			ls.asked.Store(tc.inWindow)
			ls.seeFleet(tc.mine, tc.fleet)
			ls.rate.Store(math.Float64bits(tc.mine))
			allot, need, final := c.batch(ls, 300, thresholdGlobal, 1000, 1)
			assert.InDelta(t, tc.wantAllot, allot, 1e-9)
			assert.Equal(t, tc.wantNeed, need)
			assert.Equal(t, tc.wantFinal, final)
		})
	}
}

// The demand rate is measured over at least a second, however often
// heartbeats come.
func TestDemandIsMeasuredOverASecond(t *testing.T) {
	var d demand
	d.measure(1)
	d.asked.Store(50)
	assert.Zero(t, d.measure(1+int64(200*time.Millisecond)), "not measured before a second has passed")
	d.asked.Store(120)
	assert.InDelta(t, 120/1.2, d.measure(1+int64(1200*time.Millisecond)), 1e-9, "120 calls in 1.2 s")
}
