package ruleutil

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Values printed by Sentinel 1.8.9's AbstractRule.hashCode on OpenJDK 17.
func TestAbstractRuleHashIsSentinels(t *testing.T) {
	for _, c := range []struct {
		resource, limitApp string
		regex              bool
		want               int32
	}{
		{"getOrder", "default", false, 687244648},
		{"getOrder", "", false, 687244648}, // blank is "default" to equals, and to hashCode
		{"getOrder", "appA", false, -77224616},
		{"getOrder", "appA", true, -77224615},
		{"r.*", "other", true, -900112097},
		{"", "default", false, 0},
	} {
		assert.Equal(t, c.want, AbstractRuleHash(c.resource, c.limitApp, c.regex), "%+v", c)
	}
}

func TestJavaSetsGroupByResourceAndDropEqualRules(t *testing.T) {
	type rule struct {
		resource string
		hash     int32
		id       string
	}
	rules := []rule{{"b", 3, "b1"}, {"a", 2, "a1"}, {"b", 1, "b2"}, {"b", 3, "b1"}, {"a", 18, "a2"}}
	got := JavaSets(len(rules),
		func(i int) string { return rules[i].resource },
		func(i int) int32 { return rules[i].hash },
		func(i int) string { return rules[i].id })
	// Resources as they first appear; in a set, by bin (hash & 15), then
	// as they came; the second "b1" is dropped.
	assert.Equal(t, [][]int{{2, 0}, {1, 4}}, got)
}
