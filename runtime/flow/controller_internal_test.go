package flow

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Java's WarmUpController figures, computed with Java's int casts.
func TestWarmUpTokenTable(t *testing.T) {
	tests := []struct {
		name                   string
		count                  float64
		period, coldFactor     int
		warningToken, maxToken int32
		slope                  float64
		coldQPS                float64 // warningQPS with the bucket full
	}{
		{"count 10 period 10", 10, 10, 3, 50, 100, 0.004, 10.0 / 3},
		{"count 20 period 10", 20, 10, 3, 100, 200, 0.001, 20.0 / 3},
		{"count 100 period 5", 100, 5, 3, 250, 500, 0.00008, 100.0 / 3},
		{"count 10 period 10 cold factor 2", 10, 10, 2, 100, 166, 1.0 / 10 / 66, 0},
		{"count 7.5 period 3 truncates", 7.5, 3, 3, 11, 22, 2.0 / 7.5 / 11, 1 / (11*(2.0/7.5/11) + 1/7.5)},
		{"count 1 period 1: (int)1/2 = 0", 1, 1, 3, 0, 0, math.Inf(1), math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWarmUp(tt.count, tt.period, tt.coldFactor)
			assert.Equal(t, tt.warningToken, w.warningToken)
			assert.Equal(t, tt.maxToken, w.maxToken)
			if math.IsInf(tt.slope, 1) {
				assert.True(t, math.IsInf(w.slope, 1))
				return
			}
			assert.InDelta(t, tt.slope, w.slope, 1e-12)
			if tt.coldFactor == 3 {
				assert.InDelta(t, tt.coldQPS, w.warningQPS(int64(w.maxToken)), 1e-9)
			}
		})
	}
}

// The cold rate is count/coldFactor exactly when maxToken - warningToken
// has no remainder: nextUp(1/(aboveToken*slope + 1/count)).
func TestWarmUpColdCeiling(t *testing.T) {
	w := newWarmUp(10, 10, 3)
	assert.InDelta(t, 3.3333333333, w.warningQPS(100), 1e-9)
	assert.InDelta(t, 10, w.warningQPS(50), 1e-9, "at the warning line the rate is count")
	w.syncToken(1_700_000_000_000, 0)
	assert.Equal(t, int64(100), w.storedTokens.Load(), "a new controller starts fully cold")
}

func TestWarmUpSyncToken(t *testing.T) {
	const sec = int64(1_700_000_000_000)
	w := newWarmUp(10, 10, 3)
	w.syncToken(sec, 0)
	w.syncToken(sec+999, 7)
	assert.Equal(t, int64(100), w.storedTokens.Load(), "synced once per second")
	// above the warning line, traffic at or over (int)count/coldFactor = 3
	// drains without refill.
	w.syncToken(sec+1000, 3)
	assert.Equal(t, int64(97), w.storedTokens.Load())
	// under 3, it refills count per second (capped at maxToken) before draining.
	w.syncToken(sec+2000, 2)
	assert.Equal(t, int64(98), w.storedTokens.Load())
	// below the warning line it always refills.
	w.storedTokens.Store(40)
	w.syncToken(sec+3000, 15)
	assert.Equal(t, int64(35), w.storedTokens.Load())
	w.syncToken(sec+4000, 100)
	assert.Equal(t, int64(0), w.storedTokens.Load(), "never below 0")
}

// Java switches ThrottlingController to nanoseconds when 1000 is not a
// multiple of round(count), or count > 1000.
func TestThrottlingUnitAndCost(t *testing.T) {
	tests := []struct {
		count   float64
		nanos   bool
		acquire int64
		cost    int64
	}{
		{10, false, 1, 100},
		{10, false, 3, 300},
		{7.5, false, 1, 133}, // round(7.5) = 8 divides 1000; round(133.33)
		{1000, false, 1, 1},
		{4, false, 1, 250},
		{3, true, 1, 333_333_333},
		{2000, true, 1, 500_000},
		{0.4, true, 1, 2_500_000_000}, // round(0.4) = 0: Java divides by zero
	}
	for _, tt := range tests {
		th := newThrottle(tt.count, 500)
		assert.Equal(t, tt.nanos, th.nanos, "count %v", tt.count)
		var cost int64
		if th.nanos {
			cost = javaRound(1e6 * statDurationMs * float64(tt.acquire) / tt.count)
		} else {
			cost = javaRound(statDurationMs * float64(tt.acquire) / tt.count)
		}
		assert.Equal(t, tt.cost, cost, "count %v", tt.count)
	}
}

func TestJavaCasts(t *testing.T) {
	assert.Equal(t, int32(math.MaxInt32), javaInt(1e300))
	assert.Equal(t, int32(math.MinInt32), javaInt(-1e300))
	assert.Equal(t, int32(0), javaInt(math.NaN()))
	assert.Equal(t, int32(3), javaInt(3.99))
	assert.Equal(t, int32(-3), javaInt(-3.99))
	assert.Equal(t, int64(math.MaxInt64), javaLong(math.Inf(1)))
	assert.Equal(t, int64(3), javaRound(2.5))
	assert.Equal(t, int64(-2), javaRound(-2.5))
	assert.Equal(t, int64(0), javaRound(math.NaN()))
	assert.Equal(t, int64(2), admissionLimit(2.5))
	assert.Equal(t, int64(1<<62), admissionLimit(1e300))
}
