package sentineltest_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/sentineltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func slotNames() []string {
	var out []string
	for _, s := range runtime.Slots() {
		out = append(out, s.Name)
	}
	return out
}

func TestBlockRefusesEveryCallWithABlockErrorOfItsType(t *testing.T) {
	sentineltest.Reset(t)
	for _, bt := range []runtime.BlockType{
		runtime.BlockFlow, runtime.BlockDegrade, runtime.BlockSystem,
		runtime.BlockAuthority, runtime.BlockParamFlow, runtime.BlockCustom,
	} {
		t.Run(bt.String(), func(t *testing.T) {
			res := t.Name()
			sentineltest.Block(t, res, bt)
			for range 3 {
				b := call(res)
				require.NotNil(t, b)
				assert.Equal(t, bt, b.BlockType())
				assert.Equal(t, res, b.Resource())
				assert.True(t, errors.Is(b, runtime.ErrBlocked))
				assert.Nil(t, b.TriggeredValue())
				assert.Equal(t, fmt.Sprintf("sentinel: %q blocked by %s rule: forced by sentineltest", res, bt), b.Error())

				rule, ok := b.Rule().(*sentineltest.Rule)
				require.True(t, ok, "the rule is a *sentineltest.Rule, not %T", b.Rule())
				assert.Equal(t, sentineltest.Rule{Resource: res, BlockType: bt}, *rule)
				assert.Equal(t, res, rule.ResourceName())
				assert.Equal(t, fmt.Sprintf("sentineltest block of %q (%s)", res, bt), fmt.Sprint(b.Rule()))
			}
		})
	}
}

func TestBlockEndsWithTheTestThatPlacedIt(t *testing.T) {
	sentineltest.Reset(t)
	res := t.Name() + "/r"
	t.Run("blocks", func(t *testing.T) {
		sentineltest.Block(t, res, runtime.BlockFlow)
		require.NotNil(t, call(res))
		assert.Contains(t, slotNames(), "SentinelTestBlockSlot")
	})
	assert.Nil(t, call(res), "admitted again once the test ended")
	assert.NotContains(t, slotNames(), "SentinelTestBlockSlot", "no block, no slot")
}

func TestBlockRefusesOnlyItsResource(t *testing.T) {
	sentineltest.Reset(t)
	sentineltest.Block(t, t.Name()+"/blocked", runtime.BlockFlow)
	assert.NotNil(t, call(t.Name()+"/blocked"))
	assert.Nil(t, call(t.Name()+"/other"))
	assert.Nil(t, call(t.Name()+"/blocked/child"), "names are exact, not prefixes")
}

func TestBlockAppliesToAResourceAlreadyCalled(t *testing.T) {
	sentineltest.Reset(t)
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	require.Nil(t, call(res.Name()), "its chain is bound")
	sentineltest.Block(t, res.Name(), runtime.BlockSystem)
	b := call(res.Name())
	require.NotNil(t, b, "and bound again when the block is placed")
	assert.Equal(t, runtime.BlockSystem, b.BlockType())
}

func TestACallAdmittedBeforeTheBlockExitsNormally(t *testing.T) {
	sentineltest.Reset(t)
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	e, b := res.Entry(t.Context())
	require.Nil(t, b)
	sentineltest.Block(t, res.Name(), runtime.BlockFlow)
	assert.EqualValues(t, 1, res.ClusterNode().Threads())
	e.Exit()
	assert.EqualValues(t, 0, res.ClusterNode().Threads())
}

func TestABlockedCallCountsAsABlockOfItsType(t *testing.T) {
	sentineltest.Reset(t)
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	before := res.BlockCount(runtime.BlockParamFlow)
	sentineltest.Block(t, res.Name(), runtime.BlockParamFlow)
	for range 4 {
		require.NotNil(t, call(res.Name()))
	}
	now := runtime.NowMillis()
	assert.EqualValues(t, 4, res.ClusterNode().BlockQPS(now))
	assert.Zero(t, res.ClusterNode().PassQPS(now))
	assert.Equal(t, before+4, res.BlockCount(runtime.BlockParamFlow))
}

func TestAForcedBlockRunsAheadOfRulesAndConsumesNothing(t *testing.T) {
	sentineltest.Reset(t)
	res := t.Name()
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: res, Grade: flow.GradeQPS, Count: 2}}))
	t.Run("blocked", func(t *testing.T) {
		sentineltest.Block(t, res, runtime.BlockAuthority)
		for range 5 {
			b := call(res)
			require.NotNil(t, b)
			assert.Equal(t, runtime.BlockAuthority, b.BlockType(), "never the flow rule")
		}
	})
	assert.Nil(t, call(res))
	assert.Nil(t, call(res), "the flow rule's two calls of this second are all there")
	b := call(res)
	require.NotNil(t, b)
	assert.Equal(t, runtime.BlockFlow, b.BlockType())
}

func TestBlockInASubtestReplacesTheTypeUntilTheSubtestEnds(t *testing.T) {
	sentineltest.Reset(t)
	res := t.Name()
	sentineltest.Block(t, res, runtime.BlockFlow)
	t.Run("system", func(t *testing.T) {
		sentineltest.Block(t, res, runtime.BlockSystem)
		assert.Equal(t, runtime.BlockSystem, call(res).BlockType())
	})
	assert.Equal(t, runtime.BlockFlow, call(res).BlockType())

	sentineltest.Block(t, res, runtime.BlockCustom)
	assert.Equal(t, runtime.BlockCustom, call(res).BlockType(), "the same test blocking again replaces its block")
}

func TestOpenBreakerRefusesWithADegradeBlock(t *testing.T) {
	sentineltest.Reset(t)
	sentineltest.OpenBreaker(t, t.Name())
	b := call(t.Name())
	require.NotNil(t, b)
	assert.Equal(t, runtime.BlockDegrade, b.BlockType())
	assert.IsType(t, &sentineltest.Rule{}, b.Rule())
}

func TestBlockRefusesBadArguments(t *testing.T) {
	for _, c := range []struct {
		name      string
		resource  string
		blockType runtime.BlockType
		want      string
	}{
		{"empty resource", "", runtime.BlockFlow, "sentineltest.Block: empty resource name"},
		{"zero block type", "r", 0, `sentineltest.Block("r"): BlockType(0) is not a block type`},
		{"unknown block type", "r", runtime.BlockType(99), `sentineltest.Block("r"): BlockType(99) is not a block type`},
	} {
		t.Run(c.name, func(t *testing.T) {
			reached := false
			f := runTest(t.Name(), func(ft testing.TB) {
				sentineltest.Block(ft, c.resource, c.blockType)
				reached = true
			})
			require.Len(t, f.Failures(), 1)
			assert.Contains(t, f.Failures()[0], c.want)
			assert.False(t, reached, "the test stops at Block")
			assert.NotContains(t, slotNames(), "SentinelTestBlockSlot")
		})
	}
}

func TestBlockingAResourceAnotherRunningTestBlockedFails(t *testing.T) {
	sentineltest.Reset(t)
	res := t.Name()
	other := newFakeTest("TestSomethingElse")
	other.run(func(ot testing.TB) { sentineltest.Block(ot, res, runtime.BlockFlow) })
	require.Empty(t, other.Failures())

	me := newFakeTest(t.Name() + "/me")
	me.run(func(mt testing.TB) { sentineltest.Block(mt, res, runtime.BlockSystem) })
	require.Len(t, me.Failures(), 1)
	assert.Contains(t, me.Failures()[0], `sentineltest.Block("`+res+`"): TestSomethingElse blocked it already and runs at the same time`)
	assert.Equal(t, runtime.BlockFlow, call(res).BlockType(), "the first block stands")
	me.finish()
	assert.Equal(t, runtime.BlockFlow, call(res).BlockType(), "the refused test's end lifts nothing")

	other.finish()
	assert.Nil(t, call(res))
}

func TestSlotIsListedAheadOfEveryRuleSlot(t *testing.T) {
	sentineltest.Reset(t)
	sentineltest.Block(t, t.Name(), runtime.BlockFlow)
	names := slotNames()
	i := slices.Index(names, "SentinelTestBlockSlot")
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, "StatisticSlot", names[i-1])
	for _, rule := range []string{"AuthoritySlot", "SystemSlot", "ParamFlowSlot", "FlowSlot", "DegradeSlot"} {
		assert.Greater(t, slices.Index(names, rule), i, rule)
	}
}
