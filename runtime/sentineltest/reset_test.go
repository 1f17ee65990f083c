package sentineltest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/authority"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/sentinelgen/sentinelgen/runtime/sentineltest"
	"github.com/sentinelgen/sentinelgen/runtime/system"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadOneRuleOfEachKind loads a valid rule of every kind on resource.
func loadOneRuleOfEachKind(t *testing.T, resource string) {
	t.Helper()
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: resource, Grade: flow.GradeQPS, Count: 10}}))
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: resource, Grade: degrade.ErrorCount, Count: 5, TimeWindow: 10}}))
	sys := system.NewRule()
	sys.QPS = 1000
	require.NoError(t, system.LoadRules([]system.Rule{sys}))
	require.NoError(t, authority.LoadRules([]authority.Rule{{Resource: resource, LimitApp: "web", Strategy: authority.White}}))
	require.NoError(t, paramflow.LoadRules([]paramflow.Rule{paramflow.NewRule(resource, 0, 5)}))
}

func assertNoRules(t *testing.T) {
	t.Helper()
	assert.Empty(t, flow.Rules(), "flow")
	assert.Empty(t, degrade.Rules(), "degrade")
	assert.Empty(t, system.Rules(), "system")
	assert.Empty(t, authority.Rules(), "authority")
	assert.Empty(t, paramflow.Rules(), "paramflow")
}

func TestResetClearsTheRulesOfEveryKindNow(t *testing.T) {
	sentineltest.Reset(t)
	loadOneRuleOfEachKind(t, t.Name())
	t.Run("reset", func(t *testing.T) {
		sentineltest.Reset(t)
		assertNoRules(t)
		assert.Nil(t, call(t.Name()), "nothing refuses a call")
	})
}

func TestResetClearsTheRulesAgainWhenTheTestEnds(t *testing.T) {
	sentineltest.Reset(t)
	t.Run("loads rules", func(t *testing.T) {
		sentineltest.Reset(t)
		loadOneRuleOfEachKind(t, t.Name())
	})
	assertNoRules(t)
}

func TestResetDropsTheStateOfRules(t *testing.T) {
	sentineltest.Reset(t)
	res := t.Name()
	rule := degrade.Rule{Resource: res, Grade: degrade.ErrorCount, Count: 1, TimeWindow: 60, MinRequestAmount: 1}
	fail := func() {
		e, b := runtime.Entry(context.Background(), res)
		require.Nil(t, b)
		e.SetError(errors.New("downstream failed"))
		e.Exit()
	}
	t.Run("trips the breaker", func(t *testing.T) {
		sentineltest.Reset(t)
		require.NoError(t, degrade.LoadRules([]degrade.Rule{rule}))
		fail()
		fail()
		b := call(res)
		require.NotNil(t, b, "two errors over a count of one open the breaker")
		assert.Equal(t, runtime.BlockDegrade, b.BlockType())
	})
	t.Run("loads the same rule", func(t *testing.T) {
		sentineltest.Reset(t)
		require.NoError(t, degrade.LoadRules([]degrade.Rule{rule}))
		assert.Nil(t, call(res), "the same rule starts with a closed breaker")
	})
}

func TestResetStartsEveryWindowEmpty(t *testing.T) {
	sentineltest.Reset(t)
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	for range 5 {
		assert.Nil(t, call(res.Name()))
	}
	require.EqualValues(t, 5, res.ClusterNode().PassQPS(runtime.NowMillis()))

	t.Run("reset", func(t *testing.T) {
		sentineltest.Reset(t)
		now := runtime.NowMillis()
		assert.Zero(t, res.ClusterNode().PassQPS(now))
		assert.Zero(t, res.ClusterNode().Metrics(now).PassQPS)

		require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: res.Name(), Grade: flow.GradeQPS, Count: 3}}))
		admitted := 0
		for range 10 {
			if call(res.Name()) == nil {
				admitted++
			}
		}
		assert.Equal(t, 3, admitted, "a QPS rule sees none of the earlier passes")
	})
}

func TestResetPutsThePreviousClockBackWhenTheTestEnds(t *testing.T) {
	outer := clocktest.New()
	t.Cleanup(runtime.SetClock(outer))
	t.Run("reset", func(t *testing.T) {
		sentineltest.Reset(t)
		c := sentineltest.Clock(t)
		assert.NotSame(t, outer, c)
		assert.Equal(t, c.Millis(), runtime.NowMillis(), "the runtime reads the fresh clock")
		assert.Greater(t, c.Millis(), outer.Millis(), "a fresh clock is later than any before it")
		c.Advance(time.Second)
		assert.Equal(t, c.Millis(), runtime.NowMillis())
	})
	assert.Equal(t, outer.Millis(), runtime.NowMillis(), "the outer clock is back")
}

func TestResetLeavesForcedBlocksInPlace(t *testing.T) {
	sentineltest.Block(t, t.Name(), runtime.BlockFlow)
	sentineltest.Reset(t)
	require.NotNil(t, call(t.Name()), "a block lasts until its test ends")
}
