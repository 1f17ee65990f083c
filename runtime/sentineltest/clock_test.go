package sentineltest_test

import (
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/sentineltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClockIsTheClockResetInstalled(t *testing.T) {
	sentineltest.Reset(t)
	c := sentineltest.Clock(t)
	assert.Same(t, c, sentineltest.Clock(t), "one test, one clock")
	t.Run("subtest", func(t *testing.T) {
		assert.Same(t, c, sentineltest.Clock(t), "a subtest reads its parent's clock")
	})
	before := runtime.NowMillis()
	c.Advance(1500 * time.Millisecond)
	assert.Equal(t, before+1500, runtime.NowMillis())
}

func TestClockWithoutResetIsAFreshClockRestoredAtTheEnd(t *testing.T) {
	outer := clocktest.New()
	t.Cleanup(runtime.SetClock(outer))
	t.Run("clock", func(t *testing.T) {
		c := sentineltest.Clock(t)
		assert.NotSame(t, outer, c)
		assert.Equal(t, c.Millis(), runtime.NowMillis())
	})
	assert.Equal(t, outer.Millis(), runtime.NowMillis())
}

func TestNestedResetsPutBackTheirParentsClocks(t *testing.T) {
	sentineltest.Reset(t)
	parent := sentineltest.Clock(t)
	t.Run("child", func(t *testing.T) {
		sentineltest.Reset(t)
		child := sentineltest.Clock(t)
		require.NotSame(t, parent, child, "Reset in a subtest gives it fresh statistics")
		t.Run("grandchild", func(t *testing.T) {
			sentineltest.Reset(t)
			assert.NotSame(t, child, sentineltest.Clock(t))
		})
		assert.Equal(t, child.Millis(), runtime.NowMillis())
		assert.Same(t, child, sentineltest.Clock(t))
	})
	assert.Equal(t, parent.Millis(), runtime.NowMillis())
	assert.Same(t, parent, sentineltest.Clock(t))
}

func TestThrottlingWaitsAdvanceTheTestsClockInsteadOfSleeping(t *testing.T) {
	sentineltest.Reset(t)
	c := sentineltest.Clock(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{
		Resource: t.Name(), Grade: flow.GradeQPS, Count: 10,
		ControlBehavior: flow.Throttling, MaxQueueingTimeMs: 500,
	}}))
	start := c.Millis()
	require.Nil(t, call(t.Name()))
	require.Nil(t, call(t.Name()), "the second call queues for its slot")
	assert.Equal(t, start+100, c.Millis(), "10 calls/s space calls 100 ms apart")
}
