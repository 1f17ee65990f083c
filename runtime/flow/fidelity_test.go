package flow_test

import (
	"context"
	"testing"

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
