package degrade_test

import (
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ms = time.Millisecond

// Java's ExceptionCircuitBreakerTest.testRecordErrorOrSuccess.
func TestErrorRatioTraceOpensProbesAndCloses(t *testing.T) {
	clk := setup(t)
	const res = "trace-error-ratio"
	rec := record(t, res)
	load(t, degrade.Rule{Resource: res, Grade: degrade.ErrorRatio, Count: 0.2,
		StatIntervalMs: 20_000, TimeWindow: 10, MinRequestAmount: 1})

	require.True(t, call(clk, res, 10*ms, nil))
	require.True(t, call(clk, res, 0, errBusiness), "1 error of 2 = 0.5 > 0.2: admitted, and opens on exit")
	assert.Equal(t, []transition{closedToOpen}, rec.take())
	assert.False(t, call(clk, res, 0, errBusiness))
	assert.False(t, call(clk, res, 100*ms, nil))
	clk.Advance(5 * time.Second)
	assert.False(t, call(clk, res, 100*ms, nil))
	clk.Advance(5 * time.Second)
	require.True(t, call(clk, res, 0, errBusiness), "the probe after timeWindow")
	assert.Equal(t, []transition{openToHalfOpen, halfOpenToOpen}, rec.take())
	assert.False(t, call(clk, res, 100*ms, nil))
	assert.False(t, call(clk, res, 100*ms, nil))
	clk.Advance(10 * time.Second)
	require.True(t, call(clk, res, 100*ms, nil), "a good probe closes")
	assert.Equal(t, []transition{openToHalfOpen, halfOpenToClosed}, rec.take())
	for range 6 {
		require.True(t, call(clk, res, 100*ms, nil))
	}
	require.True(t, call(clk, res, 0, errBusiness), "closing reset the window: 1 error of 7 = 0.14 <= 0.2")
	require.True(t, call(clk, res, 100*ms, nil))
	assert.Empty(t, rec.take())
	assert.Equal(t, degrade.Closed, state(t, res, 0))
}

// Java's ResponseTimeCircuitBreakerTest.testMaxSlowRatioThreshold: a slow
// ratio of exactly 1.0 against a threshold of 1.0 opens.
func TestSlowRatioOfOneOpensAtThresholdOne(t *testing.T) {
	clk := setup(t)
	const res = "slow-ratio-one"
	load(t, degrade.Rule{Resource: res, Grade: degrade.SlowRequestRatio, Count: 10,
		MinRequestAmount: 3, SlowRatioThreshold: 1, StatIntervalMs: 5000, TimeWindow: 5})

	require.True(t, call(clk, res, 20*ms, nil))
	require.True(t, call(clk, res, 20*ms, nil))
	require.True(t, call(clk, res, 20*ms, nil))
	assert.False(t, call(clk, res, 20*ms, nil), "3 of 3 calls slower than 10 ms")
	clk.Advance(time.Second)
	assert.False(t, call(clk, res, 20*ms, nil))
	clk.Advance(4 * time.Second)
	assert.True(t, call(clk, res, 20*ms, nil), "timeWindow passed: a probe")
}

// Java's CircuitBreakingIntegrationTest.testSlowRequestMode. With 7 slow
// and 3 fast calls the ratio is 0.7; each further slow call raises it:
// 8/11, 9/12, 10/13, 11/14, 12/15 = 0.8, which is not above 0.8, and 13/16
// = 0.8125, which is.
func TestSlowRatioOpensOnlyAbovePointEight(t *testing.T) {
	clk := setup(t)
	const res = "slow-ratio-0.8"
	rec := record(t, res)
	const maxRT = 50
	load(t, degrade.Rule{Resource: res, Grade: degrade.SlowRequestRatio, Count: maxRT,
		TimeWindow: 5, StatIntervalMs: 20_000, MinRequestAmount: 10, SlowRatioThreshold: 0.8})
	slow, fast := (maxRT+15)*ms, (maxRT-15)*ms

	for i := range 10 {
		d := slow
		if i >= 7 {
			d = fast
		}
		require.True(t, call(clk, res, d, nil))
	}
	for i := range 5 {
		require.True(t, call(clk, res, slow, nil), "slow call %d", 11+i)
		require.Equal(t, degrade.Closed, state(t, res, 0), "after %d slow of %d", 8+i, 11+i)
	}
	require.True(t, call(clk, res, slow, nil), "the 16th call is admitted; its exit opens")
	evs := rec.all()
	require.Len(t, evs, 1)
	assert.Equal(t, degrade.Open, evs[0].To)
	assert.InDelta(t, 13.0/16, evs[0].Value, 1e-12)
	rec.take()
	assert.False(t, call(clk, res, 1*ms, nil))

	clk.Advance(time.Second)
	assert.False(t, call(clk, res, 1*ms, nil))
	clk.Advance(5 * time.Second)
	require.True(t, call(clk, res, slow, nil), "a slow probe")
	assert.Equal(t, []transition{openToHalfOpen, halfOpenToOpen}, rec.take())
	clk.Advance(6 * time.Second)
	require.True(t, call(clk, res, fast, nil), "a fast probe")
	assert.Equal(t, []transition{openToHalfOpen, halfOpenToClosed}, rec.take())
	assert.True(t, call(clk, res, slow, nil), "closed again")
}

func TestSlowRatioEqualToThresholdBelowOneDoesNotOpen(t *testing.T) {
	clk := setup(t)
	const res = "slow-ratio-equal"
	load(t, degrade.Rule{Resource: res, Grade: degrade.SlowRequestRatio, Count: 10,
		TimeWindow: 1, MinRequestAmount: 2, SlowRatioThreshold: 0.5})
	require.True(t, call(clk, res, 20*ms, nil))
	require.True(t, call(clk, res, 5*ms, nil))
	assert.Equal(t, degrade.Closed, state(t, res, 0), "0.5 is not above 0.5")
	require.True(t, call(clk, res, 20*ms, nil))
	assert.Equal(t, degrade.Open, state(t, res, 0), "2/3 is")
}

func TestSlowRequestMaxRTIsRoundedAsJava(t *testing.T) {
	clk := setup(t)
	const res = "slow-round"
	// Math.round(10.5) = 11: an 11 ms call is not slow, a 12 ms one is.
	load(t, degrade.Rule{Resource: res, Grade: degrade.SlowRequestRatio, Count: 10.5,
		TimeWindow: 1, MinRequestAmount: 1, SlowRatioThreshold: 0})
	require.True(t, call(clk, res, 11*ms, nil))
	assert.Equal(t, degrade.Closed, state(t, res, 0))
	require.True(t, call(clk, res, 12*ms, nil))
	assert.Equal(t, degrade.Open, state(t, res, 0))
}

func TestErrorCountOpensAboveCountOnceMinRequestsSeen(t *testing.T) {
	clk := setup(t)
	const res = "error-count"
	load(t, degrade.Rule{Resource: res, Grade: degrade.ErrorCount, Count: 2, TimeWindow: 3})
	for range 3 {
		require.True(t, call(clk, res, ms, errBusiness))
	}
	require.True(t, call(clk, res, ms, nil))
	assert.Equal(t, degrade.Closed, state(t, res, 0), "3 errors > 2, but only 4 calls of the 5 needed")
	require.True(t, call(clk, res, ms, nil))
	assert.Equal(t, degrade.Open, state(t, res, 0))
	assert.False(t, call(clk, res, ms, nil))
	clk.Advance(3 * time.Second)
	assert.True(t, call(clk, res, ms, nil))
	assert.Equal(t, degrade.Closed, state(t, res, 0))
}

func TestStatisticsWindowTumblesOnIntervalBoundaries(t *testing.T) {
	clk := setup(t)
	const res = "tumbling"
	load(t, degrade.Rule{Resource: res, Grade: degrade.ErrorCount, Count: 1, TimeWindow: 1,
		MinRequestAmount: 1, StatIntervalMs: 1000})
	// The clock starts on a whole minute: errors at 900 ms and 1000 ms fall
	// in different buckets, so neither bucket holds more than one.
	clk.Advance(900 * ms)
	require.True(t, call(clk, res, 0, errBusiness))
	clk.Advance(100 * ms)
	require.True(t, call(clk, res, 0, errBusiness))
	assert.Equal(t, degrade.Closed, state(t, res, 0))
	require.True(t, call(clk, res, 0, errBusiness))
	assert.Equal(t, degrade.Open, state(t, res, 0))
}

// Java's special case is for slow ratios only: an error ratio of 1.0 never
// exceeds a threshold of 1.0.
func TestErrorRatioOfOneNeverOpensAtThresholdOne(t *testing.T) {
	clk := setup(t)
	const res = "error-ratio-one"
	load(t, degrade.Rule{Resource: res, Grade: degrade.ErrorRatio, Count: 1, TimeWindow: 1, MinRequestAmount: 1})
	for range 10 {
		require.True(t, call(clk, res, 0, errBusiness))
	}
	assert.Equal(t, degrade.Closed, state(t, res, 0))
}

func TestNothingOpensBelowMinRequestAmount(t *testing.T) {
	clk := setup(t)
	const res = "below-min"
	load(t, degrade.Rule{Resource: res, Grade: degrade.ErrorRatio, Count: 0, TimeWindow: 1, MinRequestAmount: 10})
	for range 9 {
		require.True(t, call(clk, res, 0, errBusiness))
	}
	assert.Equal(t, degrade.Closed, state(t, res, 0), "9 errors of 9 calls, 10 needed")
	require.True(t, call(clk, res, 0, nil))
	assert.Equal(t, degrade.Open, state(t, res, 0), "the 10th call, good, brings the bucket to 10: 0.9 > 0")
}
