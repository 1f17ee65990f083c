package flow_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The refusals of one rule on one resource share their BlockError, which
// names the rule in force: a reload that keeps the rule's state but
// replaces the rule (it was a dry run in between) refuses with the new
// rule, and each resource of a regex rule gets its own error.
func TestRefusalsShareTheirBlockErrorAndNameTheRuleInForce(t *testing.T) {
	refuse := func(resource string) *runtime.BlockError {
		t.Helper()
		_, b := runtime.Entry(context.Background(), resource)
		require.NotNil(t, b, "%s is refused", resource)
		return b
	}
	rule := qps("refusal-shared", 0)
	load(t, rule)
	first := refuse("refusal-shared")
	assert.Same(t, first, refuse("refusal-shared"))
	assert.False(t, first.Rule().(*flow.Rule).DryRun)

	rule.DryRun = true
	require.NoError(t, flow.LoadRules([]flow.Rule{rule}))
	require.True(t, call(context.Background(), "refusal-shared"), "a dry-run rule admits")

	rule.DryRun = false
	require.NoError(t, flow.LoadRules([]flow.Rule{rule}))
	again := refuse("refusal-shared")
	assert.NotSame(t, first, again, "built anew for the rule now in force")
	assert.Same(t, again, refuse("refusal-shared"))
	assert.False(t, again.Rule().(*flow.Rule).DryRun)

	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "refusal-regex-.*", Regex: true, Grade: flow.GradeQPS, Count: 0}}))
	a, b := refuse("refusal-regex-a"), refuse("refusal-regex-b")
	assert.NotSame(t, a, b)
	assert.Equal(t, "refusal-regex-a", a.Resource())
	assert.Equal(t, "refusal-regex-b", b.Resource())
	assert.Same(t, a.Rule(), b.Rule(), "one rule")
	assert.Same(t, a, refuse("refusal-regex-a"))
}
