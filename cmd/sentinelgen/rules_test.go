package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRulesCheckFailsOnUndeclaredResources(t *testing.T) {
	dir, env := module(t, map[string]string{
		"svc/svc.go": `package svc

import "context"

type Svc struct{}

//sentinel:resource name=getOrder
func (s *Svc) get(ctx context.Context) (int, error) { return 1, nil }
`,
		"rules/flow.json": `[{"resource": "getOrder", "count": 10},
 {"resource": "getOrdr", "count": 5},
 {"resource": "/api/order", "count": 20}]`,
	})
	code, stdout, stderr := sentinelgen(env, "rules", "check", "-pkg", "./...", "-also", "/api/order", "rules/flow.json")
	assert.Equal(t, 1, code, "a rule that protects nothing fails the check")
	assert.Equal(t, "rules/flow.json:2:2: rule 1 (resource \"getOrdr\"): warning: no declared resource is named \"getOrdr\" (did you mean \"getOrder\"?)\n", stdout)
	assert.Equal(t, "rules/flow.json: 3 flow rules checked against 2 declared resources: loads, but fails the check: 1 rule names no declared resource\n", stderr)
	assert.NotContains(t, stdout, "/api/order", "names given with -also count as declared")
	assert.NoFileExists(t, filepath.Join(dir, "svc", "svc_sentinel.go"), "rules check writes nothing")

	write(t, filepath.Join(dir, "rules", "flow.json"), `[{"resource": "getOrder", "count": 10}, {"resource": "/api/order", "count": 20}]`)
	code, stdout, stderr = sentinelgen(env, "rules", "check", "-pkg", "./...", "-also", "/api/order", "rules/flow.json")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "rules/flow.json: 2 flow rules checked against 2 declared resources: valid\n", stdout)
}

func TestRulesCheckReportsInvalidRulesAndExits1(t *testing.T) {
	_, env := module(t, map[string]string{
		"rules/degrade.json": `[{"resource": "pay", "grade": 1, "count": 1.5, "timeWindow": 10}]`,
	})
	code, _, stderr := sentinelgen(env, "rules", "check", "rules/degrade.json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `rules/degrade.json:1:2: rule 0 (resource "pay"): count`)
}

func TestRulesCheckUsage(t *testing.T) {
	for _, args := range [][]string{{"rules"}, {"rules", "lint"}, {"rules", "check"}, {"rules", "check", "-nope", "x.json"}} {
		code, _, stderr := sentinelgen(runEnv{dir: t.TempDir()}, args...)
		assert.Equal(t, 2, code, "%q", args)
		assert.Contains(t, stderr, "usage: sentinelgen rules check", "%q", args)
	}
	code, _, stderr := sentinelgen(runEnv{dir: t.TempDir()}, "rules", "check", filepath.Join(t.TempDir(), "missing.json"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "missing.json")
}

func TestRulesCheckPrintsJavaCoercionsAsWarnings(t *testing.T) {
	_, env := module(t, map[string]string{
		"rules/flow.json": "// written for Java\n[{\"resource\": \"getOrder\", \"count\": \"10\", \"controlBehavior\": 7}]\n",
	})
	code, stdout, stderr := sentinelgen(env, "rules", "check", "rules/flow.json")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "rules/flow.json:1:1: warning: a comment: JSON has no comments; fastjson skips them (so does this runtime), Jackson refuses the document\n"+
		"rules/flow.json:2:2: rule 0 (resource \"getOrder\"): warning: controlBehavior 7 is not one of 0..3; Java loads the rule and rejects calls over its count, as 0 (Reject) does\n"+
		"rules/flow.json:2:36: rule 0 (resource \"getOrder\"): warning: count \"10\" is a quoted number; read as 10, as fastjson and Jackson read it\n"+
		"rules/flow.json: 1 flow rule checked: valid (3 warnings)\n", stdout)
}

// rules check reports each dry-run rule on a line of its own, on stdout,
// and passes: dry-run rules are valid.
func TestRulesCheckReportsDryRunRules(t *testing.T) {
	_, env := module(t, map[string]string{
		"rules/sentinel.json": `{"flow": [{"resource": "getOrder", "count": 10, "dryRun": true}, {"resource": "getOrder", "count": 50}],
 "degrade": [{"resource": "pay", "grade": 2, "count": 5, "timeWindow": 10, "dryRun": true}],
 "system": [{"qps": 100, "dryRun": true}]}`,
	})
	code, stdout, stderr := sentinelgen(env, "rules", "check", "rules/sentinel.json")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, `rules/sentinel.json:1:11: flow: rule 0 (resource "getOrder"): note: dry run: admits every call, counting those it would block; Java Sentinel ignores dryRun and would enforce this rule
rules/sentinel.json:2:14: degrade: rule 0 (resource "pay"): note: dry run: admits every call, counting those it would block; Java Sentinel ignores dryRun and would enforce this rule
rules/sentinel.json:3:13: system: rule 0: note: dry run: admits every call, counting those it would block; Java Sentinel ignores dryRun and would enforce this rule
rules/sentinel.json: 4 rules of a combined document checked: valid
`, stdout)
}

// rules check reads adaptive rules alone and in a combined file, with
// their problems positioned like any other kind's.
func TestRulesCheckReadsAdaptiveRules(t *testing.T) {
	_, env := module(t, map[string]string{
		"rules/adaptive.json": `[{"resource": "getOrder"},
 {"resource": "pay", "minLimit": 10, "maxLimit": 5}]`,
		"rules/sentinel.json": `{"flow": [{"resource": "getOrder", "count": 10}],
 "adaptive": [{"resource": "getOrder", "maxLimit": 200, "dryRun": true}]}`,
	})
	code, _, stderr := sentinelgen(env, "rules", "check", "rules/adaptive.json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `rules/adaptive.json:2:2: rule 1 (resource "pay"): maxLimit 5 is below minLimit 10`)
	code, stdout, stderr := sentinelgen(env, "rules", "check", "rules/sentinel.json")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, `rules/sentinel.json:2:15: adaptive: rule 0 (resource "getOrder"): note: dry run: admits every call, counting those it would block (Java Sentinel has no adaptive rule)
rules/sentinel.json: 2 rules of a combined document checked: valid
`, stdout)
}

// A misspelt field protects nothing as its author meant ("cout" leaves
// count at 0: every call blocked): rules check says which field was meant,
// and a refusal the typo causes names it.
func TestRulesCheckWarnsOnMisspeltFields(t *testing.T) {
	_, env := module(t, map[string]string{
		"rules/flow.json":     `[{"resource": "getOrder", "grade": 1, "count": 3, "maxQueueingTimeMss": 3, "id": 7, "gmtCreate": 1}]`,
		"rules/bad-flow.json": `[{"resource": "getOrder", "count": 3, "strategy": 1, "refResorce": "other"}]`,
		"rules/cuont.json":    `[{"resource": "getOrder", "cuont": 20}]`,
	})
	code, stdout, stderr := sentinelgen(env, "rules", "check", "rules/flow.json")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `rules/flow.json:1:51: rule 0 (resource "getOrder"): warning: maxQueueingTimeMss is not a field of this rule; did you mean "maxQueueingTimeMs"?`)
	assert.NotContains(t, stdout, "gmtCreate", "the dashboard's own fields stay quiet")
	code, _, stderr = sentinelgen(env, "rules", "check", "-kind", "flow", "rules/cuont.json")
	assert.Equal(t, 1, code, "a misspelt threshold left unset is refused")
	assert.Contains(t, stderr, `rules/cuont.json:1:2: rule 0 (resource "getOrder"): count is not set, and the rule has "cuont": did you mean "count"?`)
	code, _, stderr = sentinelgen(env, "rules", "check", "rules/bad-flow.json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `(the rule has "refResorce": did you mean "refResource"?)`)
}

// rules check says what it checked, so that success is not silence;
// -kind names the kind as rules push's does, with a "did you mean".
func TestRulesCheckSaysWhatItCheckedAndTakesKind(t *testing.T) {
	_, env := module(t, map[string]string{
		"rules/r.json":    `[{"resource": "a", "timeWindow": 0, "count": 1}]`,
		"rules/flow.json": `[{"resource": "a", "count": 1}, {"resource": "b", "count": 2}]`,
	})
	// Detected as degrade (timeWindow), where timeWindow 0 is refused.
	code, _, stderr := sentinelgen(env, "rules", "check", "rules/r.json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "timeWindow")
	code, stdout, stderr := sentinelgen(env, "rules", "check", "-kind", "flow", "rules/r.json", "rules/flow.json")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "rules/r.json: 1 flow rule checked: valid\nrules/flow.json: 2 flow rules checked: valid\n", stdout)

	code, _, stderr = sentinelgen(env, "rules", "check", "-kind", "flwo", "rules/r.json")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown -kind "flwo"; did you mean flow?`)
	assert.Contains(t, stderr, "usage: sentinelgen rules check")
}

// A rule that blocks every call is valid, and a warning; -strict fails on
// any warning.
func TestRulesCheckWarnsOnRulesThatBlockEveryCallAndStrictFails(t *testing.T) {
	_, env := module(t, map[string]string{
		"rules/flow.json": `[{"resource": "getOrder", "count": 0}]`,
		"rules/ok.json":   `[{"resource": "getOrder", "count": 10}]`,
	})
	code, stdout, stderr := sentinelgen(env, "rules", "check", "rules/flow.json")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, `rules/flow.json:1:2: rule 0 (resource "getOrder"): warning: count is 0: the rule blocks every call; fine if meant (a switch that closes the resource), else set the threshold, or add "dryRun": true to see what it would block`+"\n"+
		"rules/flow.json: 1 flow rule checked: valid (1 warning)\n", stdout)
	code, _, stderr = sentinelgen(env, "rules", "check", "-strict", "rules/flow.json", "rules/ok.json")
	assert.Equal(t, 1, code)
	assert.Equal(t, "rules/flow.json: 1 flow rule checked: loads, but fails the check: 1 warning, and -strict fails on warnings\n", stderr)
	code, _, stderr = sentinelgen(env, "rules", "check", "-strict", "rules/ok.json")
	assert.Equal(t, 0, code, stderr)
}

// The fleet's commands moved to sentinelctl: the old command line says
// where, and the generator links no client of a fleet's servers.
func TestRulesPushSaysToUseSentinelctl(t *testing.T) {
	code, _, stderr := sentinelgen(runEnv{dir: t.TempDir()}, "rules", "push", "-etcd", "a:1", "-key", "k", "flow.json")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "go run github.com/sentinelgen/sentinelgen/cmd/sentinelctl rules push")
}
