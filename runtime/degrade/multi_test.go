package degrade_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Java's CircuitBreakingIntegrationTest.testMultipleHalfOpenedBreakers:
// two breakers on one resource, with timeWindows of 2 s and 4 s.
func TestTwoBreakersOnOneResourceProbeIndependently(t *testing.T) {
	clk := setup(t)
	const res = "two-breakers"
	rule := degrade.Rule{Resource: res, Grade: degrade.SlowRequestRatio, Count: 50, TimeWindow: 2,
		StatIntervalMs: 20_000, MinRequestAmount: 1, SlowRatioThreshold: 0.8}
	longer := rule
	longer.TimeWindow = 4
	load(t, rule, longer)

	require.True(t, call(clk, res, 100*ms, nil))
	assert.Equal(t, degrade.Open, state(t, res, 0))
	assert.Equal(t, degrade.Open, state(t, res, 1))

	clk.Advance(3 * time.Second)
	for range 10 {
		// The first breaker lets a probe through, the second refuses it,
		// so the first goes back to OPEN with its retry time unchanged.
		require.False(t, call(clk, res, 100*ms, nil))
		require.Equal(t, degrade.Open, state(t, res, 0))
		require.Equal(t, degrade.Open, state(t, res, 1))
	}

	clk.Advance(3 * time.Second)
	for range 10 {
		require.True(t, call(clk, res, 1*ms, nil))
	}
	assert.Equal(t, degrade.Closed, state(t, res, 0))
	assert.Equal(t, degrade.Closed, state(t, res, 1))
}

// laterSlot blocks calls of one resource while on is set; it runs after the
// degrade slot.
type laterSlot struct {
	res string
	on  *atomic.Bool
}

func (s laterSlot) Bind(r *runtime.Resource) runtime.Checker {
	if r.Name() != s.res {
		return nil
	}
	return s
}

func (s laterSlot) Check(c *runtime.Call) *runtime.BlockError {
	if s.on.Load() {
		return c.Block(runtime.BlockCustom, nil, nil)
	}
	return nil
}

func (laterSlot) Exit(*runtime.Call) {}

func installLaterSlot(t *testing.T, res string) *atomic.Bool {
	on := &atomic.Bool{}
	runtime.RegisterSlot("test-later-"+res, runtime.OrderDegrade+1, laterSlot{res, on})
	t.Cleanup(func() { runtime.UnregisterSlot("test-later-" + res) })
	return on
}

func TestProbeBlockedByLaterSlotReturnsToOpenKeepingRetryTime(t *testing.T) {
	clk := setup(t)
	const res = "probe-blocked-later"
	rec := record(t, res)
	block := installLaterSlot(t, res)
	load(t, degrade.Rule{Resource: res, Grade: degrade.ErrorCount, Count: 0, TimeWindow: 5, MinRequestAmount: 1})

	require.True(t, call(clk, res, 0, errBusiness))
	assert.Equal(t, []transition{closedToOpen}, rec.take())
	retry := degrade.Breakers()[0].NextRetryMillis
	require.Equal(t, runtime.NowMillis()+5000, retry)

	clk.Advance(5 * time.Second)
	block.Store(true)
	_, b := runtime.Entry(context.Background(), res)
	require.NotNil(t, b)
	assert.Equal(t, runtime.BlockCustom, b.BlockType(), "the breaker admitted the probe; the later slot blocked it")
	assert.Equal(t, []transition{openToHalfOpen, halfOpenToOpen}, rec.take())
	assert.Equal(t, degrade.Open, state(t, res, 0))
	assert.Equal(t, retry, degrade.Breakers()[0].NextRetryMillis, "retry time unchanged")

	block.Store(false)
	require.True(t, call(clk, res, 0, nil), "the next call probes at once")
	assert.Equal(t, []transition{openToHalfOpen, halfOpenToClosed}, rec.take())
}

func TestCallsBlockedByLaterSlotAreNoSamples(t *testing.T) {
	clk := setup(t)
	const res = "blocked-no-sample"
	block := installLaterSlot(t, res)
	load(t, degrade.Rule{Resource: res, Grade: degrade.ErrorRatio, Count: 0.5, TimeWindow: 1,
		MinRequestAmount: 1, StatIntervalMs: 60_000})
	block.Store(true)
	for range 10 {
		require.False(t, call(clk, res, 0, nil))
	}
	block.Store(false)
	require.True(t, call(clk, res, 0, errBusiness))
	assert.Equal(t, degrade.Open, state(t, res, 0), "1 error of 1 sample: the blocked calls did not count")
}

func TestReloadingAnEqualRuleKeepsItsBreakerState(t *testing.T) {
	clk := setup(t)
	const res = "reload-equal"
	rule := degrade.Rule{Resource: res, Grade: degrade.ErrorCount, Count: 0, TimeWindow: 60, MinRequestAmount: 1}
	other := degrade.Rule{Resource: res + "-other", Grade: degrade.ErrorRatio, Count: 0.5, TimeWindow: 1}
	load(t, rule)
	require.True(t, call(clk, res, 0, errBusiness))
	require.Equal(t, degrade.Open, state(t, res, 0))

	// Equal once defaults are filled in: limitApp "default", statIntervalMs 1000.
	same := rule
	same.LimitApp = "default"
	same.StatIntervalMs = 1000
	load(t, other, same)
	assert.Equal(t, degrade.Open, state(t, res, 0))
	assert.False(t, call(clk, res, 0, nil))

	changed := rule
	changed.TimeWindow = 30
	load(t, changed)
	assert.Equal(t, degrade.Closed, state(t, res, 0), "a changed rule starts closed")
	assert.True(t, call(clk, res, 0, nil))
}

func TestRegexRuleGetsABreakerPerResource(t *testing.T) {
	clk := setup(t)
	load(t, degrade.Rule{Resource: "regex-svc-.*", Regex: true, Grade: degrade.ErrorCount, Count: 0,
		TimeWindow: 10, MinRequestAmount: 1})
	require.True(t, call(clk, "regex-svc-a", 0, errBusiness))
	assert.False(t, call(clk, "regex-svc-a", 0, nil))
	assert.True(t, call(clk, "regex-svc-b", 0, nil), "b has its own breaker")
	assert.True(t, call(clk, "regex-other", 0, errBusiness))
	assert.True(t, call(clk, "regex-other", 0, nil), "no match, no breaker")
	assert.Equal(t, degrade.Open, state(t, "regex-svc-a", 0))
	assert.Equal(t, degrade.Closed, state(t, "regex-svc-b", 0))

	// An unchanged regex rule keeps its per-resource breakers on reload.
	load(t, degrade.Rule{Resource: "regex-svc-.*", Regex: true, Grade: degrade.ErrorCount, Count: 0,
		TimeWindow: 10, MinRequestAmount: 1})
	assert.False(t, call(clk, "regex-svc-a", 0, nil))
}

func TestDefaultRulesApplyToResourcesWithoutRulesOfTheirOwn(t *testing.T) {
	clk := setup(t)
	rec := record(t, "default-a")
	load(t,
		degrade.Rule{Resource: degrade.DefaultResource, Grade: degrade.ErrorCount, Count: 0, TimeWindow: 10, MinRequestAmount: 1},
		degrade.Rule{Resource: "default-own", Grade: degrade.ErrorCount, Count: 5, TimeWindow: 10, MinRequestAmount: 1},
	)
	require.True(t, call(clk, "default-a", 0, errBusiness))
	assert.False(t, call(clk, "default-a", 0, nil), "the default breaker of default-a opened")
	assert.True(t, call(clk, "default-b", 0, nil), "default-b has a default breaker of its own")
	for range 3 {
		require.True(t, call(clk, "default-own", 0, errBusiness), "its own rule, not the default, applies")
	}
	evs := rec.all()
	require.Len(t, evs, 1)
	assert.Equal(t, degrade.DefaultResource, evs[0].Rule.Resource)
	assert.Equal(t, "default-a", evs[0].Resource)

	_, b := runtime.Entry(context.Background(), "default-a")
	require.NotNil(t, b)
	assert.Equal(t, runtime.BlockDegrade, b.BlockType())
	assert.Equal(t, degrade.DefaultResource, b.Rule().ResourceName())
}

func TestObserverPanicIsRecovered(t *testing.T) {
	clk := setup(t)
	const res = "observer-panic"
	degrade.RegisterStateChangeObserver("panicky", func(degrade.StateChange) { panic("boom") })
	t.Cleanup(func() { degrade.UnregisterStateChangeObserver("panicky") })
	load(t, degrade.Rule{Resource: res, Grade: degrade.ErrorCount, Count: 0, TimeWindow: 1, MinRequestAmount: 1})
	assert.NotPanics(t, func() { call(clk, res, 0, errBusiness) })
	assert.Equal(t, degrade.Open, state(t, res, 0))
}

func TestRulesReportsDefaultsFilledIn(t *testing.T) {
	setup(t)
	load(t, degrade.Rule{Resource: "rules-report", Grade: degrade.ErrorCount, Count: 1, TimeWindow: 1})
	assert.Equal(t, []degrade.Rule{{Resource: "rules-report", LimitApp: "default", Grade: degrade.ErrorCount,
		Count: 1, TimeWindow: 1, MinRequestAmount: 5, StatIntervalMs: 1000}}, degrade.Rules())
	require.NoError(t, degrade.LoadRules(nil))
	assert.Empty(t, degrade.Rules())
}

func TestPropertyUpdateLoadsRules(t *testing.T) {
	setup(t)
	rule := degrade.Rule{Resource: "property", Grade: degrade.ErrorCount, Count: 1, TimeWindow: 1}
	require.NoError(t, degrade.Property().Update([]degrade.Rule{rule}))
	require.Len(t, degrade.Rules(), 1)
	require.Error(t, degrade.Property().Update([]degrade.Rule{{Resource: "bad"}}))
	require.Len(t, degrade.Rules(), 1, "a refused set leaves the rules in force")
}

// Java 1.8.9 rebuilds every regex rule's breakers, closed, whenever a load
// changes the rule list (its regex cache is regenerated from the rules),
// while a literal rule that stays unchanged keeps its breaker; an equal
// list is no reload at all. Here every rule that stays unchanged keeps its
// breakers, regex or not (a documented difference): editing one rule must
// not close the open breakers of others and send traffic to a dependency
// that is failing.
func TestAnOpenRegexBreakerStaysOpenWhenAnotherRuleChanges(t *testing.T) {
	clk := setup(t)
	regex := degrade.Rule{Resource: "regex-reload-.*", Regex: true, Grade: degrade.ErrorCount, Count: 0,
		TimeWindow: 60, MinRequestAmount: 1}
	other := degrade.Rule{Resource: "regex-reload-other", Grade: degrade.ErrorRatio, Count: 0.5, TimeWindow: 1}
	load(t, regex, other)
	require.True(t, call(clk, "regex-reload-a", 0, errBusiness))
	require.Equal(t, degrade.Open, state(t, "regex-reload-a", 0))

	load(t, regex, other)
	assert.False(t, call(clk, "regex-reload-a", 0, nil), "an equal list: open, as in Java")

	changed := other
	changed.Count = 0.6
	load(t, regex, changed)
	assert.False(t, call(clk, "regex-reload-a", 0, nil), "another rule changed: still open (Java closes it and admits)")
	assert.Equal(t, degrade.Open, state(t, "regex-reload-a", 0))
}
