package flow

import (
	"bufio"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// javaCase is one rule set of testdata/flow_java17.txt: the rules, and
// what Java Sentinel 1.8.9 on OpenJDK 17 made of them.
type javaCase struct {
	line   int
	rules  []Rule
	hashes []int32
	order  map[string][]int // by resource: the list Java checks, as load indexes
}

func readJavaCases(t *testing.T, path string, parseRule func(t *testing.T, fields map[string]string) Rule) []javaCase {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var cases []javaCase
	var c *javaCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		head, rest, _ := strings.Cut(line, " ")
		switch head {
		case "set":
			c = &javaCase{line: n, order: map[string][]int{}}
		case "r":
			fields := map[string]string{}
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				v, err := url.PathUnescape(v)
				require.NoError(t, err, "line %d", n)
				fields[k] = v
			}
			c.rules = append(c.rules, parseRule(t, fields))
		case "hash":
			for _, h := range strings.Fields(rest) {
				v, err := strconv.ParseInt(h, 10, 32)
				require.NoError(t, err)
				c.hashes = append(c.hashes, int32(v))
			}
		case "order":
			fs := strings.Fields(rest)
			res, err := url.PathUnescape(fs[0])
			require.NoError(t, err)
			for _, f := range fs[1:] {
				i, err := strconv.Atoi(f)
				require.NoError(t, err)
				c.order[res] = append(c.order[res], i)
			}
		case "end":
			cases = append(cases, *c)
		}
	}
	require.NoError(t, sc.Err())
	return cases
}

func atoi(t *testing.T, fields map[string]string, k string, def int) int {
	v, ok := fields[k]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, k)
	return n
}

// javaRule builds the rule the Java harness built with FlowRule's setters
// from the same fields.
func javaRule(t *testing.T, f map[string]string) Rule {
	r := Rule{
		Resource:          f["resource"],
		LimitApp:          LimitAppDefault,
		Grade:             Grade(atoi(t, f, "grade", 1)),
		Strategy:          Strategy(atoi(t, f, "strategy", 0)),
		RefResource:       f["ref"],
		ControlBehavior:   ControlBehavior(atoi(t, f, "cb", 0)),
		WarmUpPeriodSec:   atoi(t, f, "warm", 10),
		MaxQueueingTimeMs: atoi(t, f, "mq", 500),
		ClusterMode:       f["cluster"] == "1",
		Regex:             f["regex"] == "1",
	}
	if app, ok := f["limitApp"]; ok {
		r.LimitApp = app
	}
	if v, ok := f["count"]; ok {
		c, err := strconv.ParseFloat(v, 64)
		require.NoError(t, err)
		r.Count = c
	}
	if v, ok := f["cc"]; ok {
		var n [10]int64
		for i, s := range strings.Split(v, ",") {
			x, err := strconv.ParseInt(s, 10, 64)
			require.NoError(t, err)
			n[i] = x
		}
		r.ClusterConfig = &ClusterConfig{FlowID: n[0], ThresholdType: int(n[1]), FallbackToLocalWhenFail: n[2] == 1,
			Strategy: int(n[3]), SampleCount: int(n[4]), WindowIntervalMs: int(n[5]), ResourceTimeout: n[6],
			ResourceTimeoutStrategy: int(n[7]), AcquireRefuseStrategy: int(n[8]), ClientOfflineTime: n[9]}
	}
	return r
}

// 160 rule sets (random ones of every grade, strategy, behaviour, origin,
// cluster and regex rule, with duplicates; crowded ones whose HashSet bins
// become trees) run through Java Sentinel 1.8.9's buildFlowRuleMap: the
// hash codes are FlowRule.hashCode's, and each resource's rules are checked
// in Java's order, duplicates dropped as Java's HashSet drops them.
func TestRulesAreCheckedInJavasOrder(t *testing.T) {
	cases := readJavaCases(t, "testdata/flow_java17.txt", javaRule)
	require.Len(t, cases, 160)
	for _, c := range cases {
		require.NoError(t, ValidateRules(c.rules), "set at line %d", c.line)
		inForce := make([]Rule, len(c.rules))
		for i := range c.rules {
			inForce[i] = c.rules[i].normalized()
			require.Equal(t, c.hashes[i], javaHashCode(&inForce[i]), "set at line %d, rule %d", c.line, i)
		}
		got := map[string][]int{}
		for _, g := range javaOrder(inForce) {
			got[inForce[g[0]].Resource] = g
		}
		require.Equal(t, c.order, got, "set at line %d", c.line)

		// What the slot checks: a resource's own rules, then a pattern's.
		loadMu.Lock()
		install(c.rules, nil)
		rs := current.Load()
		loadMu.Unlock()
		for res, want := range c.order {
			var exact, regex []*Rule
			for _, i := range want {
				if c.rules[i].Regex {
					regex = append(regex, &inForce[i])
				} else {
					exact = append(exact, &inForce[i])
				}
			}
			assert.Equal(t, exact, rulesOf(rs.exact[res]), "set at line %d, resource %q", c.line, res)
			var ofPattern []*compiled
			for _, cr := range rs.regex {
				if cr.rule.Resource == res {
					ofPattern = append(ofPattern, cr)
				}
			}
			assert.Equal(t, regex, rulesOf(ofPattern), "set at line %d, pattern %q", c.line, res)
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
