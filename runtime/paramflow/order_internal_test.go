package paramflow

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/sentinelgen/sentinelgen/internal/javacase"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// javaRule builds the rule the Java harness built with ParamFlowRule's
// setters from the same fields.
func javaRule(f map[string]string) (Rule, error) {
	var errs []error
	num := func(k string, def int) int {
		n, err := javacase.Int(f, k, def)
		errs = append(errs, err)
		return n
	}
	r := Rule{
		Resource:          f["resource"],
		LimitApp:          f["limitApp"],
		Grade:             Grade(num("grade", 1)),
		ParamIdx:          Index(num("idx", 0)),
		ControlBehavior:   ControlBehavior(num("cb", 0)),
		MaxQueueingTimeMs: int64(num("mq", 0)),
		BurstCount:        int64(num("burst", 0)),
		DurationInSec:     int64(num("dur", 1)),
		ClusterMode:       f["cluster"] == "1",
		Regex:             f["regex"] == "1",
	}
	c, err := strconv.ParseFloat(f["count"], 64)
	r.Count = c
	errs = append(errs, err)
	if v, ok := f["items"]; ok {
		for _, item := range strings.Split(v, ";") {
			parts := strings.Split(item, ":")
			obj, err1 := url.PathUnescape(parts[0])
			count, err2 := strconv.ParseInt(parts[1], 10, 64)
			class, err3 := url.PathUnescape(parts[2])
			errs = append(errs, err1, err2, err3)
			r.ParamFlowItemList = append(r.ParamFlowItemList, Item{Object: obj, Count: count, ClassType: class})
		}
	}
	if v, ok := f["cc"]; ok {
		var n [5]int64
		for i, s := range strings.Split(v, ",") {
			x, err := strconv.ParseInt(s, 10, 64)
			errs = append(errs, err)
			n[i] = x
		}
		r.ClusterConfig = &ClusterConfig{FlowID: n[0], ThresholdType: int(n[1]), FallbackToLocalWhenFail: n[2] == 1,
			SampleCount: int(n[3]), WindowIntervalMs: int(n[4])}
	}
	return r, errors.Join(errs...)
}

// 123 rule sets (random ones of both grades, every behaviour, items of
// every class, cluster and regex rules, with duplicates; crowded ones
// whose HashSet bins become trees) run through Java Sentinel 1.8.9's
// buildParamRuleMap: the hash codes are ParamFlowRule.hashCode's, and each
// resource's rules are checked in Java's order, duplicates dropped as
// Java's HashSet drops them.
func TestRulesAreCheckedInJavasOrder(t *testing.T) {
	cases := javacase.Read(t, "testdata/paramflow_java17.txt", javaRule)
	require.Len(t, cases, 123)
	for _, c := range cases {
		require.NoError(t, LoadRules(c.Rules), "set at line %d", c.Line)
		s := inForce.Load()
		for i := range s.rules {
			require.Equal(t, c.Hashes[i], javaHashCode(&s.rules[i]), "set at line %d, rule %d", c.Line, i)
		}
		got := map[string][]int{}
		for _, g := range javaOrder(s.rules) {
			got[s.rules[g[0]].Resource] = g
		}
		require.Equal(t, c.Order, got, "set at line %d", c.Line)

		// What the slot checks: a resource's own rules, then a pattern's.
		for res, want := range c.Order {
			var exact, regex []*Rule
			for _, i := range want {
				if s.rules[i].Regex {
					regex = append(regex, &s.rules[i])
				} else {
					exact = append(exact, &s.rules[i])
				}
			}
			assert.Equal(t, exact, rulesOf(s.byResource[res]), "set at line %d, resource %q", c.Line, res)
			var ofPattern []*compiledRule
			for _, cr := range s.regex {
				if cr.rule.Resource == res {
					ofPattern = append(ofPattern, cr)
				}
			}
			assert.Equal(t, regex, rulesOf(ofPattern), "set at line %d, pattern %q", c.Line, res)
		}
	}
	require.NoError(t, LoadRules(nil))
}

func rulesOf(crs []*compiledRule) []*Rule {
	var out []*Rule
	for _, cr := range crs {
		out = append(out, cr.rule)
	}
	return out
}
