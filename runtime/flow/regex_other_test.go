package flow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// "other" on a regex rule means, here as for a literal rule, the origins
// that no rule applying to the called resource names. Java 1.8.9 asks
// isOtherOrigin with the rule's resource string, which for a regex rule is
// the pattern: the pattern's own rules (".+" names no origin), so every
// origin is "other" to it, and a catch-all "other" rule refuses the very
// callers given limits of their own (a documented difference). Java's
// verdicts where they differ are noted.
func TestOtherOnARegexRuleLeavesOutTheOriginsTheResourcesRulesName(t *testing.T) {
	load(t,
		flow.Rule{Resource: "user/put", LimitApp: "o1", Count: 10},
		flow.Rule{Resource: ".+", Regex: true, LimitApp: flow.LimitAppOther, Count: 0},
	)
	assert.True(t, call(from("o1"), "user/put"), "o1 has a rule of its own on user/put (Java refuses it by the regex rule)")
	assert.False(t, call(from("o2"), "user/put"), "o2 is other, as in Java")
	assert.False(t, call(from("o1"), "user/get"), "no rule of user/get names o1: other, as in Java")
}
