package flow_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// Rules that Java's FlowRuleUtil.isValidRule accepts load here, with the
// meaning Java's FlowRuleChecker and FlowRuleUtil.generateRater give them,
// and LintRules says what that meaning is.
func TestRulesJavaAcceptsLoadWithJavaMeaning(t *testing.T) {
	tests := []struct {
		name     string
		doc      string
		calls    int
		admitted int
		field    string
		lint     string
	}{
		// generateRater: "Default mode or unknown mode: default traffic
		// shaping controller (fast-reject)".
		{"unknown controlBehavior rejects over the count, as Reject",
			`{"resource":"r1","grade":1,"count":2,"controlBehavior":7}`, 5, 2,
			"controlBehavior", "7 is not one of 0..3; Java loads the rule and rejects calls over its count, as 0 (Reject) does"},
		// selectReferenceNode returns null for a strategy it does not know;
		// passLocalCheck passes a call when no node is selected.
		{"unknown strategy passes every call",
			`{"resource":"r2","grade":1,"count":0,"strategy":5,"refResource":"other"}`, 5, 5,
			"strategy", "5 is not one of 0..2 (Direct, Relate, Chain); Java loads the rule and it passes every call (no statistics to read)"},
		// isValidRule checks refResource for QPS rules only; with none,
		// selectReferenceNode returns null and every call passes.
		{"thread Chain rule without refResource passes every call",
			`{"resource":"r3","grade":0,"count":0,"strategy":2}`, 5, 5,
			"refResource", "is blank on a thread rule with strategy 2 (Chain); Java loads the rule and it passes every call (no statistics to read)"},
		{"thread Relate rule without refResource passes every call",
			`{"resource":"r4","grade":0,"count":0,"strategy":1}`, 5, 5,
			"refResource", "is blank on a thread rule with strategy 1 (Relate)"},
		// Without a token server, passClusterCheck falls back to
		// passLocalCheck, which selects no node either.
		{"unknown strategy on a cluster rule falling back to local passes every call",
			`{"resource":"r6","grade":1,"count":0,"strategy":4,"clusterMode":true,"clusterConfig":{"flowId":7}}`, 5, 5,
			"strategy", "4 is not one of 0..2"},
		{"thread rule with an unknown controlBehavior rejects as every thread rule",
			`{"resource":"r5","grade":0,"count":0,"controlBehavior":9}`, 3, 0,
			"controlBehavior", "9 is not one of 0..3; Java ignores it, as every thread rule rejects calls over its count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r flow.Rule
			require.NoError(t, json.Unmarshal([]byte(tt.doc), &r))
			require.NoError(t, flow.ValidateRules([]flow.Rule{r}), "Java's validator accepts it")
			lint := flow.LintRules([]flow.Rule{r})
			require.Len(t, lint, 1)
			assert.Equal(t, tt.field, lint[0].Field)
			assert.Contains(t, lint[0].Reason, tt.lint)
			load(t, r)
			assert.Equal(t, tt.admitted, calls(context.Background(), r.Resource, tt.calls))
		})
	}
}

func TestRulesJavaRejectsStayRefused(t *testing.T) {
	for _, doc := range []string{
		`{"resource":"a","grade":1,"strategy":-1}`,        // strategy >= 0
		`{"resource":"a","grade":1,"controlBehavior":-1}`, // controlBehavior >= 0
		`{"resource":"a","grade":1,"strategy":1}`,         // QPS Relate without refResource
		`{"resource":"a.*","regex":true,"grade":1,"controlBehavior":5}`,
	} {
		var r flow.Rule
		require.NoError(t, json.Unmarshal([]byte(doc), &r), doc)
		var re runtime.RuleErrors
		require.ErrorAs(t, flow.ValidateRules([]flow.Rule{r}), &re, doc)
	}
	var re runtime.RuleErrors
	require.ErrorAs(t, flow.ValidateRules([]flow.Rule{{Resource: "a", Grade: 2}}), &re, "neither QPS nor thread")
}

func TestLintIsQuietOnOrdinaryRules(t *testing.T) {
	assert.Empty(t, flow.LintRules([]flow.Rule{
		{Resource: "a", Grade: flow.GradeQPS, Count: 1},
		{Resource: "a", Grade: flow.GradeQPS, Strategy: flow.Relate, RefResource: "b"},
		{Resource: "a", Grade: flow.GradeThread, ControlBehavior: flow.WarmUp},
	}))
}
