package flow_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// `getOrder)|(.*` used to escape its anchors: a count-0 rule meant for
// getOrder blocked every resource of the process.
func TestRegexRuleCannotEscapeItsAnchors(t *testing.T) {
	defer flow.LoadRules(nil)
	err := flow.LoadRules([]flow.Rule{{Resource: "getOrder)|(.*", Regex: true, Grade: flow.GradeQPS, Count: 0}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a valid regular expression")
	e, b := runtime.Entry(context.Background(), "flow.regex.victim")
	require.Nil(t, b, "no rule matches an unrelated resource")
	e.Exit()
}

// Each pattern was compiled twice (validation, then the manager), with no
// cap on its size or on the whole set's: 7,000 large patterns took 100 s.
func TestRegexRulesCompileOnceWithinCaps(t *testing.T) {
	defer flow.LoadRules(nil)
	before := ruleutil.RegexCompilations()
	require.NoError(t, flow.LoadRules([]flow.Rule{
		{Resource: "flow\\.once\\..*", Regex: true, Grade: flow.GradeQPS, Count: 0},
		{Resource: "flow\\.once\\..*", Regex: true, Grade: flow.GradeThread, Count: 5},
	}))
	assert.EqualValues(t, 1, ruleutil.RegexCompilations()-before, "one pattern, compiled once for validation and rules")
	_, b := runtime.Entry(context.Background(), "flow.once.x")
	require.NotNil(t, b, "the compiled rule applies")

	rules := make([]flow.Rule, 300)
	for i := range rules {
		rules[i] = flow.Rule{Resource: strings.Repeat(`\w{1000}`, 4) + strings.Repeat("x", i), Regex: true, Grade: flow.GradeQPS, Count: 1}
	}
	before = ruleutil.RegexCompilations()
	err := flow.LoadRules(rules)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "instructions in all")
	assert.Less(t, ruleutil.RegexCompilations()-before, int64(30), "compiling stops at the set's budget")

	err = flow.LoadRules([]flow.Rule{{Resource: strings.Repeat("a", ruleutil.MaxRegexLen+1), Regex: true, Grade: flow.GradeQPS, Count: 1}})
	assert.ErrorContains(t, err, "byte cap")
}

// BenchmarkLoadHostileRegexRules loads (and refuses) 300 patterns of
// about 4,000 instructions each: the set's budget stops compiling early.
func BenchmarkLoadHostileRegexRules(b *testing.B) {
	rules := make([]flow.Rule, 300)
	for i := range rules {
		rules[i] = flow.Rule{Resource: strings.Repeat(`\w{1000}`, 4) + strings.Repeat("x", i), Regex: true, Grade: flow.GradeQPS, Count: 1}
	}
	b.ReportAllocs()
	for b.Loop() {
		if flow.LoadRules(rules) == nil {
			b.Fatal("loaded")
		}
	}
}

// BenchmarkLoadRegexRules loads documents the caps allow and refuse:
// 97 rules of ~1,000 instructions reading a Unicode class against the
// same with a plain rune (both refused: they need more than eight
// automata), and 300 patterns of 15,000 instructions each (refused by the
// per-pattern cap).
func BenchmarkLoadRegexRules(b *testing.B) {
	document := func(n int, resource func(i int) string) []flow.Rule {
		rules := make([]flow.Rule, n)
		for i := range rules {
			rules[i] = flow.Rule{Resource: resource(i), Regex: true, Grade: flow.GradeQPS, Count: 1}
		}
		return rules
	}
	class := func(class string) func(int) string {
		return func(i int) string { return fmt.Sprintf(`/svc%02d/%s{990}`, i, class) }
	}
	for _, bc := range []struct {
		name  string
		rules []flow.Rule
	}{
		{"plainRunes", document(97, class("x"))},
		{"unicodeClasses", document(97, class(`[\pL\pN_.~-]`))},
		{"foldedClasses", document(97, class(`(?i:[\p{Greek}k])`))},
		{"overCap", document(300, func(i int) string {
			return fmt.Sprintf(`(?:abcdefghijklmn%c){1000}`, 'a'+i%26) + strings.Repeat("z", i/26)
		})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			defer func() { _ = flow.LoadRules(nil) }()
			b.ReportAllocs()
			for b.Loop() {
				_ = flow.LoadRules(bc.rules)
			}
		})
	}
}
