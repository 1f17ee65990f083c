package flow

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/sentinelgen/sentinelgen/internal/javacase"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// javaRule builds the rule the Java harness built with FlowRule's setters
// from the same fields.
func javaRule(f map[string]string) (Rule, error) {
	var errs []error
	num := func(k string, def int) int {
		n, err := javacase.Int(f, k, def)
		errs = append(errs, err)
		return n
	}
	r := Rule{
		Resource:          f["resource"],
		LimitApp:          LimitAppDefault,
		Grade:             Grade(num("grade", 1)),
		Strategy:          Strategy(num("strategy", 0)),
		RefResource:       f["ref"],
		ControlBehavior:   ControlBehavior(num("cb", 0)),
		WarmUpPeriodSec:   num("warm", 10),
		MaxQueueingTimeMs: num("mq", 500),
		ClusterMode:       f["cluster"] == "1",
		Regex:             f["regex"] == "1",
	}
	if app, ok := f["limitApp"]; ok {
		r.LimitApp = app
	}
	if v, ok := f["count"]; ok {
		c, err := strconv.ParseFloat(v, 64)
		errs = append(errs, err)
		r.Count = c
	}
	if v, ok := f["cc"]; ok {
		var n [10]int64
		for i, s := range strings.Split(v, ",") {
			x, err := strconv.ParseInt(s, 10, 64)
			errs = append(errs, err)
			n[i] = x
		}
		r.ClusterConfig = &ClusterConfig{FlowID: n[0], ThresholdType: int(n[1]), FallbackToLocalWhenFail: n[2] == 1,
			Strategy: int(n[3]), SampleCount: int(n[4]), WindowIntervalMs: int(n[5]), ResourceTimeout: n[6],
			ResourceTimeoutStrategy: int(n[7]), AcquireRefuseStrategy: int(n[8]), ClientOfflineTime: n[9]}
	}
	return r, errors.Join(errs...)
}

// 160 rule sets (random ones of every grade, strategy, behaviour, origin,
// cluster and regex rule, with duplicates; crowded ones whose HashSet bins
// become trees) run through Java Sentinel 1.8.9's buildFlowRuleMap: the
// hash codes are FlowRule.hashCode's, and each resource's rules are checked
// in Java's order, duplicates dropped as Java's HashSet drops them.
func TestRulesAreCheckedInJavasOrder(t *testing.T) {
	cases := javacase.Read(t, "testdata/flow_java17.txt", javaRule)
	require.Len(t, cases, 160)
	for _, c := range cases {
		require.NoError(t, ValidateRules(c.Rules), "set at line %d", c.Line)
		inForce := make([]Rule, len(c.Rules))
		for i := range c.Rules {
			inForce[i] = c.Rules[i].normalized()
			require.Equal(t, c.Hashes[i], javaHashCode(&inForce[i]), "set at line %d, rule %d", c.Line, i)
		}
		got := map[string][]int{}
		for _, g := range javaOrder(inForce) {
			got[inForce[g[0]].Resource] = g
		}
		require.Equal(t, c.Order, got, "set at line %d", c.Line)

		// What the slot checks: a resource's own rules, then a pattern's.
		loadMu.Lock()
		install(c.Rules, nil)
		rs := current.Load()
		loadMu.Unlock()
		for res, want := range c.Order {
			var exact, regex []*Rule
			for _, i := range want {
				if c.Rules[i].Regex {
					regex = append(regex, &inForce[i])
				} else {
					exact = append(exact, &inForce[i])
				}
			}
			assert.Equal(t, exact, rulesOf(rs.exact[res]), "set at line %d, resource %q", c.Line, res)
			var ofPattern []*compiled
			for _, cr := range rs.regex {
				if cr.rule.Resource == res {
					ofPattern = append(ofPattern, cr)
				}
			}
			assert.Equal(t, regex, rulesOf(ofPattern), "set at line %d, pattern %q", c.Line, res)
		}
	}
	loadMu.Lock()
	install(nil, nil)
	loadMu.Unlock()
}

func rulesOf(crs []*compiled) []*Rule {
	var out []*Rule
	for _, cr := range crs {
		out = append(out, cr.rule)
	}
	return out
}

// The attacker's rule file: 20,000 distinct rules of one resource crafted
// to one FlowRule.hashCode (warmUpPeriodSec one more, maxQueueingTimeMs
// 31 less: 31^3 - 31*31^2 = 0). They load, each kept once, and their
// order costs O(n log n), not the O(n^2) of comparing each new rule with
// every one of its hash code.
func TestRulesOfOneHashCodeLoadInLinearithmicTime(t *testing.T) {
	const n = 20_000
	rules := make([]Rule, n)
	for i := range rules {
		rules[i] = Rule{Resource: "crafted", LimitApp: LimitAppDefault, Grade: GradeQPS, Count: 1e9,
			WarmUpPeriodSec: 10 + i, MaxQueueingTimeMs: 1_000_000 - 31*i}
	}
	for i := range rules {
		require.Equal(t, javaHashCode(&rules[0]), javaHashCode(&rules[i]))
	}
	require.NoError(t, LoadRules(rules))
	t.Cleanup(func() { require.NoError(t, LoadRules(nil)) })
	assert.Len(t, Rules(), n)
	require.Len(t, javaOrder(rules), 1)
	assert.Len(t, javaOrder(rules)[0], n)
}
