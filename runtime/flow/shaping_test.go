package flow_test

import (
	"context"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func warmUpRule(resource string, count float64) flow.Rule {
	return flow.Rule{Resource: resource, Grade: flow.GradeQPS, Count: count, ControlBehavior: flow.WarmUp, WarmUpPeriodSec: 10}
}

// A cold warm-up rule admits count/coldFactor: count 10 admits 3 in the
// first second (3 + 1 > 3.33 refuses the fourth), and the rate climbs to
// count as traffic drains the bucket.
func TestWarmUpColdStartAdmitsCountOverColdFactor(t *testing.T) {
	c := load(t, warmUpRule("warm", 10))
	ctx := context.Background()
	var perSecond []int
	for range 40 {
		perSecond = append(perSecond, calls(ctx, "warm", 20))
		c.Advance(time.Second)
	}
	assert.Equal(t, 3, perSecond[0], "cold: 10/3")
	assert.Equal(t, 3, perSecond[1])
	for i := 1; i < len(perSecond); i++ {
		assert.GreaterOrEqual(t, perSecond[i], perSecond[i-1], "the rate only rises: %v", perSecond)
	}
	assert.Equal(t, 10, perSecond[len(perSecond)-1], "warm: count: %v", perSecond)
	t.Logf("admitted per second: %v", perSecond)
}

func TestWarmUpColdFactorSetting(t *testing.T) {
	require.NoError(t, flow.SetColdFactor(2))
	t.Cleanup(func() { require.NoError(t, flow.SetColdFactor(flow.DefaultColdFactor)) })
	load(t, warmUpRule("warm-cf2", 10))
	assert.Equal(t, 5, calls(context.Background(), "warm-cf2", 20), "cold: 10/2")
}

func TestWarmUpCountZeroBlocks(t *testing.T) {
	load(t, warmUpRule("warm-zero", 0))
	assert.Equal(t, 0, calls(context.Background(), "warm-zero", 5))
}

// count 10, queue 500 ms: calls at the same instant pass with waits of 0,
// 100, ..., 500 ms; the seventh would wait 600 ms and is refused.
func TestThrottlingSpacesCallsAndRefusesBeyondTheQueue(t *testing.T) {
	clk := newFrozenClock()
	defer runtime.SetClock(clk)()
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "queue", Grade: flow.GradeQPS, Count: 10,
		ControlBehavior: flow.Throttling, MaxQueueingTimeMs: 500}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	ctx := context.Background()
	for i := range 6 {
		require.True(t, call(ctx, "queue"), "call %d", i)
		assert.Equal(t, time.Duration(i)*100*time.Millisecond, clk.lastSleep(), "call %d", i)
	}
	assert.False(t, call(ctx, "queue"), "a 600 ms wait is over the 500 ms queue")
	assert.Equal(t, time.Duration(0), clk.lastSleep())

	// 100 ms later one turn has gone by: one more call fits.
	clk.Advance(100 * time.Millisecond)
	assert.True(t, call(ctx, "queue"))
	assert.Equal(t, 500*time.Millisecond, clk.lastSleep())
	assert.False(t, call(ctx, "queue"))
}

// With a clock whose Sleep passes time, sequential callers are spaced
// exactly 100 ms apart.
func TestThrottlingPacesSequentialCallers(t *testing.T) {
	load(t, flow.Rule{Resource: "pace", Grade: flow.GradeQPS, Count: 10, ControlBehavior: flow.Throttling})
	start := runtime.NowMillis()
	assert.Equal(t, 20, calls(context.Background(), "pace", 20))
	assert.Equal(t, int64(1900), runtime.NowMillis()-start)
}

func TestThrottlingAbandonsTheWaitWhenTheContextIsCancelled(t *testing.T) {
	clk := newFrozenClock()
	defer runtime.SetClock(clk)()
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "cancel", Grade: flow.GradeQPS, Count: 10, ControlBehavior: flow.Throttling}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	require.True(t, call(context.Background(), "cancel"))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e, b := runtime.Entry(ctx, "cancel")
	assert.Nil(t, e)
	require.NotNil(t, b, "a cancelled caller does not wait")
	// its turn was given back: the next caller waits 100 ms, not 200.
	require.True(t, call(context.Background(), "cancel"))
	assert.Equal(t, 100*time.Millisecond, clk.lastSleep())
}

// Where Java counts in nanoseconds (1000 % round(3) != 0), count 3 spaces
// calls 333,333,333 ns apart.
func TestThrottlingNanosecondMode(t *testing.T) {
	clk := newFrozenClock()
	defer runtime.SetClock(clk)()
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "nanos", Grade: flow.GradeQPS, Count: 3,
		ControlBehavior: flow.Throttling, MaxQueueingTimeMs: 1000}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	ctx := context.Background()
	for i := range 4 {
		require.True(t, call(ctx, "nanos"), "call %d", i)
		assert.Equal(t, time.Duration(i)*333_333_333, clk.lastSleep(), "call %d", i)
	}
	assert.False(t, call(ctx, "nanos"), "1.33 s is over the 1 s queue")
}

func TestThrottlingCountZeroBlocks(t *testing.T) {
	load(t, flow.Rule{Resource: "queue-zero", Grade: flow.GradeQPS, Count: 0, ControlBehavior: flow.Throttling})
	assert.False(t, call(context.Background(), "queue-zero"))
}

// Warm up + throttling: cold, the spacing is that of count/coldFactor,
// round(1000/3.33) = 300 ms, so a 500 ms queue holds one waiting call.
func TestWarmUpThrottlingColdSpacing(t *testing.T) {
	clk := newFrozenClock()
	defer runtime.SetClock(clk)()
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "warm-queue", Grade: flow.GradeQPS, Count: 10,
		ControlBehavior: flow.WarmUpThrottling, WarmUpPeriodSec: 10, MaxQueueingTimeMs: 500}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	ctx := context.Background()
	require.True(t, call(ctx, "warm-queue"))
	assert.Equal(t, time.Duration(0), clk.lastSleep())
	require.True(t, call(ctx, "warm-queue"))
	assert.Equal(t, 300*time.Millisecond, clk.lastSleep())
	assert.False(t, call(ctx, "warm-queue"), "600 ms > 500 ms")
}

func TestWarmUpThrottlingCountZeroBlocks(t *testing.T) {
	load(t, flow.Rule{Resource: "warm-queue-zero", Grade: flow.GradeQPS, Count: 0, ControlBehavior: flow.WarmUpThrottling})
	assert.False(t, call(context.Background(), "warm-queue-zero"))
}

// Warm up + throttling warms up too: with steady traffic the spacing
// shrinks to 1000/count.
func TestWarmUpThrottlingWarmsUp(t *testing.T) {
	c := load(t, flow.Rule{Resource: "warm-queue-up", Grade: flow.GradeQPS, Count: 10,
		ControlBehavior: flow.WarmUpThrottling, WarmUpPeriodSec: 10, MaxQueueingTimeMs: 500})
	ctx := context.Background()
	var perSecond []int
	for range 40 {
		start := runtime.NowMillis()
		n := 0
		for runtime.NowMillis()-start < 1000 {
			if call(ctx, "warm-queue-up") {
				n++
			} else {
				c.Advance(10 * time.Millisecond)
			}
		}
		perSecond = append(perSecond, n)
	}
	// cold, 300 ms apart: 4 turns start in the first second, and the last
	// caller may have queued into it.
	assert.InDelta(t, 4, perSecond[0], 1, "%v", perSecond)
	assert.InDelta(t, 10, perSecond[len(perSecond)-1], 1, "%v", perSecond)
	t.Logf("admitted per second: %v", perSecond)
}
