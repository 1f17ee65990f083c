package authority_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/authority"
)

// Java's AuthorityRuleManager keeps the first rule of a resource and
// ignores the rest ("Ignoring redundant rule"); isValidRule accepts any
// strategy >= 0, and AuthorityRuleChecker.passCheck passes every call for
// a strategy that is neither white nor black.
func TestRulesJavaAcceptsLoadWithJavaMeaning(t *testing.T) {
	rules := []authority.Rule{
		{Resource: "auth-dup", LimitApp: "appA", Strategy: authority.Black},
		{Resource: "auth-dup", LimitApp: "appB", Strategy: authority.Black}, // ignored
		{Resource: "auth-odd", LimitApp: "appA", Strategy: 2},
		{Resource: "auth-commas", LimitApp: ",,", Strategy: authority.White},
	}
	require.NoError(t, authority.ValidateRules(rules))
	lint := authority.LintRules(rules)
	require.Len(t, lint, 3)
	assert.Equal(t, []string{"resource", "strategy", "limitApp"}, []string{lint[0].Field, lint[1].Field, lint[2].Field})
	assert.Equal(t, 1, lint[0].Index)
	assert.Contains(t, lint[0].Reason, "Java keeps that one and ignores this one")
	assert.Contains(t, lint[1].Reason, "passes every call")
	assert.Contains(t, lint[2].Reason, "as a white list it refuses every caller with an origin")

	load(t, rules...)
	assert.NotNil(t, enter("auth-dup", "appA"), "the first rule is in force")
	assert.Nil(t, enter("auth-dup", "appB"), "the redundant one is not")
	assert.Equal(t, []authority.Rule{rules[0], rules[2], rules[3]}, authority.Rules(),
		"only the rules in force are listed (getRules, write-backs), as Java lists them")
	assert.Nil(t, enter("auth-odd", "appA"), "an unknown strategy passes")
	var b *runtime.BlockError = enter("auth-commas", "appA")
	assert.NotNil(t, b, "a white list naming no origin refuses every caller with one")
	assert.Nil(t, enter("auth-commas", ""), "a call without an origin passes, as in Java")
}

func TestNegativeStrategyStaysRefused(t *testing.T) {
	assert.Error(t, authority.ValidateRules([]authority.Rule{{Resource: "a", LimitApp: "b", Strategy: -1}}))
}

// Java's AuthorityRuleManager keys its rules by resource string before it
// splits the regex ones off: a regex rule and a literal rule with the same
// string are one resource's two rules, and the first in the list is kept.
// Java 1.8.9's verdicts: the first rule decides, the second is ignored.
func TestARegexRuleAndALiteralRuleWithOneStringAreOneResourcesRules(t *testing.T) {
	regex := authority.Rule{Resource: "r1", LimitApp: "o1", Strategy: authority.Black, Regex: true}
	literal := authority.Rule{Resource: "r1", LimitApp: "o2", Strategy: authority.Black}
	for _, tc := range []struct {
		name    string
		rules   []authority.Rule
		refused string // the origin refused
		passes  string
	}{
		{"the regex rule first", []authority.Rule{regex, literal}, "o1", "o2"},
		{"the literal rule first", []authority.Rule{literal, regex}, "o2", "o1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			load(t, tc.rules...)
			assert.NotNil(t, enter("r1", tc.refused), "the first rule is in force")
			assert.Nil(t, enter("r1", tc.passes), "the second is ignored")
			assert.Equal(t, tc.rules[:1], authority.Rules())
			lint := authority.LintRules(tc.rules)
			require.Len(t, lint, 1)
			assert.Equal(t, 1, lint[0].Index)
		})
	}
}
