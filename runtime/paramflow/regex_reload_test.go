package paramflow_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

// regexRule is a regex hot-parameter rule with a 3-second window and one
// token: a second call with a value inside the window is refused.
func regexRule() paramflow.Rule {
	r := paramflow.NewRule("pf-re-reload-.*", 0, 1)
	r.Regex = true
	r.DurationInSec = 3
	return r
}

// Java 1.8.9 keeps a hot-parameter rule's state by resource and rule: a
// regex rule reloaded unchanged among other rules keeps its tokens. Java's
// verdicts: pass; after the reload, refused; refused still when the 3 s
// are just over (Java refills once more than the window has passed); then
// a pass.
func TestARegexRuleReloadedUnchangedKeepsItsTokens(t *testing.T) {
	r := regexRule()
	clk := load(t, r)
	assert.True(t, passes("pf-re-reload-a", "v"))

	clk.Advance(time.Second)
	require.NoError(t, paramflow.LoadRules([]paramflow.Rule{paramflow.NewRule("pf-re-reload-other", 0, 5), r}))
	assert.False(t, passes("pf-re-reload-a", "v"), "the window holds its token across the reload")

	clk.Advance(2 * time.Second)
	assert.False(t, passes("pf-re-reload-a", "v"), "3 s: not more than the window")
	clk.Advance(time.Millisecond)
	assert.True(t, passes("pf-re-reload-a", "v"), "a new window")
}

// A rule's state lives while the rule is in force, regex or not (both
// documented differences). Java never clears a regex rule's state when the
// rule goes, so an equal rule loaded again finds its tokens (Java refuses
// the call here); and it clears every rule's state on a resource whose own
// rules all went, a regex rule's included (Java admits the call here).
func TestARegexRulesStateLivesWhileTheRuleIsInForce(t *testing.T) {
	other := paramflow.NewRule("pf-re-reload-other", 0, 5)
	own := paramflow.NewRule("pf-re-reload-a", 0, 5)
	for _, tc := range []struct {
		name   string
		loads  [][]paramflow.Rule // after the first call, with the regex rule alone in force
		passes bool
	}{
		{"removed and loaded again starts afresh (Java: its old tokens)", [][]paramflow.Rule{{other}, {other, regexRule()}}, true},
		{"the resource's own rules removed keeps it (Java: afresh)", [][]paramflow.Rule{{own, regexRule()}, {regexRule()}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			load(t, regexRule())
			require.True(t, passes("pf-re-reload-a", "v"))
			for _, rules := range tc.loads {
				require.NoError(t, paramflow.LoadRules(rules))
			}
			assert.Equal(t, tc.passes, passes("pf-re-reload-a", "v"))
		})
	}
}
