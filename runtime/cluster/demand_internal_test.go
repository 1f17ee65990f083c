package cluster

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// seeFleetOf gives d the reply a fleet of rates makes, d's own the
// mine-th (luaShares's arithmetic).
func seeFleetOf(d *demand, rates []float64, mine int) {
	var sum, raised float64
	for _, r := range rates {
		sum += r
	}
	for _, r := range rates {
		raised += max(r, sum/(minShareDivisor*float64(len(rates))))
	}
	d.seeFleet(rates[mine], sum, int64(len(rates)), math.Ceil(raised))
}

// The fallback share follows the fleet's demand as the last answered
// heartbeat saw it, never below a quarter of an even share, and is an
// even share until a fleet's demand was seen.
func TestFallbackCountFollowsDemand(t *testing.T) {
	for _, tc := range []struct {
		name  string
		live  int64
		fleet []float64 // nil: no heartbeat saw demand
		mine  int
		want  float64
	}{
		{"the busiest of 400, 200 and 40 calls a second", 3, []float64{400, 200, 40}, 0, 0.99 * 300 * 400 / (400 + 200 + 640.0/12)},
		{"the quietest takes a quarter of an even share, not 40/640", 3, []float64{400, 200, 40}, 2, 0.99 * 300 * (640.0 / 12) / (400 + 200 + 640.0/12)},
		{"an idle instance still serves a quarter of an even share", 3, []float64{400, 200, 0}, 2, 0.99 * 300 * 50.0 / 650},
		{"no demand seen yet: an even share", 3, nil, 0, 100},
		{"never reached Redis: the whole count", 0, nil, 0, 300},
		{"alone in the fleet: the whole count", 1, []float64{50}, 0, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{}
			c.live.Store(tc.live)
			var d demand
			if tc.fleet != nil {
				seeFleetOf(&d, tc.fleet, tc.mine)
			}
			assert.InDelta(t, tc.want, c.fallbackCount(&d, 300), 0.5)
		})
	}
}

// The shares the instances take from one reply add up to 99% of the
// count (1% left for demand that moves between replies): the fleet's
// fallback admits at most its limit a second, and at least 98% of it
// where the demand is there.
func TestFallbackSharesAddUpToTheCount(t *testing.T) {
	for _, demands := range [][]float64{{400, 200, 40}, {1000, 1, 1}, {100, 100, 100}, {0, 0, 500}, {640, 0, 0}} {
		var sum, whole float64
		for i := range demands {
			c := &Client{}
			c.live.Store(int64(len(demands)))
			var d demand
			seeFleetOf(&d, demands, i)
			n := c.fallbackCount(&d, 300)
			sum += n
			whole += math.Floor(n) // what a local check of n admits
		}
		assert.LessOrEqual(t, sum, 0.99*300, "%v", demands)
		assert.GreaterOrEqual(t, whole, 0.98*300-float64(len(demands)), "%v", demands)
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
			if tc.fleet > 0 {
				rest := tc.fleet - tc.mine // two instances with half of it each
				seeFleetOf(&ls.demand, []float64{tc.mine, rest / 2, rest / 2}, 0)
			}
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
