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

// Java's RuleManager.getRules returns the resource's own rules, sorted by
// FlowRuleComparator, and then appends the regex rules that match it. A
// regex rule for a specific origin therefore comes after an exact "default"
// rule, although the comparator would put it first.
func TestRuleOrderOwnRulesBeforeRegexMatches(t *testing.T) {
	load(t,
		flow.Rule{Resource: "ord.*", Regex: true, Grade: flow.GradeQPS, Count: 0, LimitApp: "appA"},
		flow.Rule{Resource: "orders", Grade: flow.GradeQPS, Count: 0, LimitApp: "default"},
	)
	r := blockedBy(t, from("appA"), "orders")
	require.NotNil(t, r)
	assert.Equal(t, "orders", r.Resource, "the exact default rule is met first")
	assert.False(t, r.Regex)
}

// Each pattern's rules are sorted by FlowRuleComparator among themselves
// (Java sorts per resource string before splitting regex rules off).
func TestRuleOrderRegexRulesSortedPerPattern(t *testing.T) {
	load(t,
		flow.Rule{Resource: "pay.*", Regex: true, Grade: flow.GradeQPS, Count: 0, LimitApp: "default"},
		flow.Rule{Resource: "pay.*", Regex: true, Grade: flow.GradeQPS, Count: 0, LimitApp: "appA"},
	)
	r := blockedBy(t, from("appA"), "payments")
	require.NotNil(t, r)
	assert.Equal(t, "appA", r.LimitApp)
}

// Java's DefaultController for thread grade: curThreadNum + acquireCount >
// count refuses, and curThreadNum counts one per call whatever its batch
// count (StatisticSlot's increaseThreadNum). A rule of 4 admits three
// batch-2 calls: 0+2, 1+2 and 2+2 are within 4, 3+2 is not.
func TestThreadGradeCountsCallsNotTokens(t *testing.T) {
	load(t, flow.Rule{Resource: "batch-threads", Grade: flow.GradeThread, Count: 4})
	ctx := context.Background()
	var held []*runtime.SentinelEntry
	for range 5 {
		e, b := runtime.Entry(ctx, "batch-threads", runtime.WithBatchCount(2))
		if b == nil {
			held = append(held, e)
		}
	}
	assert.Len(t, held, 3)
	assert.Equal(t, int64(3), runtime.LookupResource("batch-threads").ClusterNode().Threads())
	for _, e := range held {
		e.Exit()
	}
	e, b := runtime.Entry(ctx, "batch-threads", runtime.WithBatchCount(4))
	require.Nil(t, b, "0 + 4 <= 4 once every call has exited")
	_, b = runtime.Entry(ctx, "batch-threads", runtime.WithBatchCount(1))
	require.Nil(t, b, "1 + 1 <= 4")
	_, b = runtime.Entry(ctx, "batch-threads", runtime.WithBatchCount(3))
	require.NotNil(t, b, "2 + 3 > 4")
	e.Exit()
}

// Java's StatisticSlot.entry counts a call's pass after fireEntry returns,
// that is after ThrottlingController.canPass has slept for the call's turn:
// the pass lands in the window the call passed in, while its response time
// counts from the entry's createTimestamp, the wait included.
func TestPassIsCountedWhenTheChecksReturn(t *testing.T) {
	clk := load(t, flow.Rule{Resource: "pass-after-wait", Grade: flow.GradeQPS, Count: 10,
		ControlBehavior: flow.Throttling, MaxQueueingTimeMs: 500})
	ctx := context.Background()
	t0 := clk.Millis()
	clk.Advance(450 * time.Millisecond)
	require.True(t, call(ctx, "pass-after-wait"), "at 450: passes at once")
	require.True(t, call(ctx, "pass-after-wait"), "at 450: waits 100 ms")
	assert.Equal(t, t0+550, clk.Millis())
	clk.Advance(400 * time.Millisecond)
	require.True(t, call(ctx, "pass-after-wait"), "at 950: passes at once")
	require.True(t, call(ctx, "pass-after-wait"), "at 950: waits 100 ms, passes at 1050")

	node := runtime.LookupResource("pass-after-wait").ClusterNode()
	var passes []int64
	var rts []int64
	for _, b := range node.SecondWindow().Buckets(clk.Millis()) {
		passes = append(passes, b.Pass)
		rts = append(rts, b.RT)
	}
	assert.Equal(t, []int64{2, 1}, passes, "[500, 1000): 550 (waited from 450) and 950; [1000, 1500): 1050 (waited from 950)")
	assert.Equal(t, []int64{100, 100}, rts, "a waiting call's response time includes its wait")

	clk.Advance(450 * time.Millisecond)
	assert.Equal(t, 3.0, node.PreviousPassQPS(clk.Millis()), "the second [0, 1000): 450, 550 and 950")
	assert.Equal(t, 1.0, node.PassQPS(clk.Millis()))
}
