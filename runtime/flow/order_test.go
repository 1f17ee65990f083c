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

// Java Sentinel checks rules of the same limitApp in its HashSet's order.
// Run on Sentinel 1.8.9 and OpenJDK 17: FlowRule.hashCode puts rule A
// (hash 256880394) in bin 5 and rule B (1095174329) in bin 14, so A is
// checked first whichever way the rules are loaded. The second call, at
// the same instant, waits 750 ms in A's warm-up queue (count 4 cold: one
// call per 750 ms); by then B's next turn, 500 ms after the first call,
// has come, and the call passes. Checking B first, as load order [B, A]
// did, refuses it at once (its turn is 500 ms away, its queue 1 ms).
// (Java refuses it by B after the wait only when its clock is a mock that
// Thread.sleep does not move, so that B sees the first call's instant; on
// a real clock it passes, as here, where a wait moves the call's time.)
func TestTiedFlowRulesAreCheckedInJavasOrderWhateverTheLoadOrder(t *testing.T) {
	a := flow.Rule{Resource: "r1", Grade: flow.GradeQPS, Count: 4, ControlBehavior: flow.WarmUpThrottling,
		WarmUpPeriodSec: 1, MaxQueueingTimeMs: 1000}
	b := flow.Rule{Resource: "r1", Grade: flow.GradeQPS, Count: 2, ControlBehavior: flow.Throttling, MaxQueueingTimeMs: 1}
	for name, rules := range map[string][]flow.Rule{"load [A, B]": {a, b}, "load [B, A]": {b, a}} {
		t.Run(name, func(t *testing.T) {
			clk := load(t, rules...)
			start := clk.Now()
			require.True(t, call(runtime.EnterContext(context.Background(), "ctx-1", ""), "r1"))
			require.True(t, call(runtime.EnterContext(context.Background(), "ctx-2", ""), "r1"), "Java: PASS after a wait")
			assert.Equal(t, 750*time.Millisecond, clk.Now().Sub(start))
		})
	}
}

// Of two rules that both refuse every call, the BlockError names the one
// Java checks first, and so the rule Java's FlowException carries: on
// Sentinel 1.8.9 the thread rule (hash -244256702, bin 1) comes before
// the QPS rule (-2051711165, bin 8) of the same limitApp.
func TestBlockErrorNamesTheRuleJavasFlowExceptionCarries(t *testing.T) {
	qpsRule := flow.Rule{Resource: "getOrder", Grade: flow.GradeQPS, Count: 0}
	threadRule := flow.Rule{Resource: "getOrder", Grade: flow.GradeThread, Count: 0}
	for name, rules := range map[string][]flow.Rule{"qps first": {qpsRule, threadRule}, "thread first": {threadRule, qpsRule}} {
		t.Run(name, func(t *testing.T) {
			load(t, rules...)
			_, b := runtime.Entry(context.Background(), "getOrder")
			require.NotNil(t, b)
			assert.Equal(t, flow.GradeThread, b.Rule().(*flow.Rule).Grade)
		})
	}
}

// Java's HashSet drops a rule equal to one already in it: a blank limitApp
// is "default", so the second rule below is the first again. The first
// loaded stays, and Rules lists each kept rule once, in load order.
func TestRulesEqualToJavaAreLoadedOnceTheFirstKept(t *testing.T) {
	first := flow.Rule{Resource: "getOrder", Grade: flow.GradeQPS, Count: 5, LimitApp: ""}
	again := flow.Rule{Resource: "getOrder", Grade: flow.GradeQPS, Count: 5, LimitApp: flow.LimitAppDefault, DryRun: true}
	appA := flow.Rule{Resource: "getOrder", Grade: flow.GradeQPS, Count: 5, LimitApp: "appA"}
	load(t, first, again, appA)
	got := flow.Rules()
	require.Len(t, got, 2)
	assert.Equal(t, flow.LimitAppDefault, got[0].LimitApp)
	assert.False(t, got[0].DryRun, "the first of two equal rules stays")
	assert.Equal(t, "appA", got[1].LimitApp)
}
