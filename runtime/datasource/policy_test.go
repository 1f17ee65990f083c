package datasource_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

// A document holding rules Java's validators accept, but that do not do
// what they seem to, loads; each such rule is a warning that says what
// Java does with it.
func TestRulesJavaAcceptsLoadWithAWarning(t *testing.T) {
	clearAll(t)
	doc := `[
  {"resource": "a", "grade": 1, "count": 5, "strategy": 3},
  {"resource": "b", "grade": 1, "count": 5, "controlBehavior": 4},
  {"resource": "c", "grade": 0, "count": 5, "strategy": 2}
]`
	rep, err := datasource.LoadReport("flow.json", []byte(doc), datasource.Flow)
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Rules)
	assert.Len(t, flow.Rules(), 3)
	var got []string
	for _, w := range rep.Warnings {
		got = append(got, w.String())
	}
	assert.Equal(t, []string{
		`flow.json:2:3: rule 0 (resource "a"): warning: strategy 3 is not one of 0..2 (Direct, Relate, Chain); Java loads the rule and it passes every call (no statistics to read)`,
		`flow.json:3:3: rule 1 (resource "b"): warning: controlBehavior 4 is not one of 0..3; Java loads the rule and rejects calls over its count, as 0 (Reject) does`,
		`flow.json:4:3: rule 2 (resource "c"): warning: refResource is blank on a thread rule with strategy 2 (Chain); Java loads the rule and it passes every call (no statistics to read)`,
	}, got)

	rep, err = datasource.LoadReport("paramflow.json", []byte(`[{"resource":"d","paramIdx":0,"count":5,"controlBehavior":1}]`), datasource.ParamFlow)
	require.NoError(t, err)
	require.Len(t, rep.Warnings, 1)
	assert.Equal(t, `paramflow.json:1:2: rule 0 (resource "d"): warning: controlBehavior 1 (warm-up) has no hot-parameter implementation; Java loads the rule and limits with the token bucket, as 0 does`,
		rep.Warnings[0].String())
	assert.Len(t, paramflow.Rules(), 1)
}

// A rule Java's validators refuse refuses the whole document by default;
// WithPolicy(SkipInvalid) is Java's buildFlowRuleMap: skip it, say why,
// load the rest.
func TestPolicyForRulesJavaRefuses(t *testing.T) {
	doc := `[
  {"resource": "good", "count": 5},
  {"resource": "bad", "count": -1},
  {"resource": "", "count": 1},
  {"resource": "also-good", "count": 7, "controlBehavior": 9}
]`
	t.Run("default: the whole document is refused and the rules in force stay", func(t *testing.T) {
		clearAll(t)
		require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "before", Grade: flow.GradeQPS, Count: 1}}))
		n, err := datasource.Load("flow.json", []byte(doc), datasource.Flow)
		require.Error(t, err)
		assert.Zero(t, n)
		assert.Equal(t, "flow.json: rule 1 (resource \"bad\"): count -1 is negative; it must be >= 0 (0 blocks every call)\n"+
			"flow.json: rule 2: resource is blank; a rule needs the name of the resource it protects", err.Error())
		require.Len(t, flow.Rules(), 1)
		assert.Equal(t, "before", flow.Rules()[0].Resource)
	})
	t.Run("SkipInvalid: the rest load, each skipped rule a warning", func(t *testing.T) {
		clearAll(t)
		rep, err := datasource.LoadReport("flow.json", []byte(doc), datasource.Flow, datasource.WithPolicy(datasource.SkipInvalid))
		require.NoError(t, err)
		assert.Equal(t, 2, rep.Rules)
		assert.Equal(t, 2, rep.Skipped)
		var names []string
		for _, r := range flow.Rules() {
			names = append(names, r.Resource)
		}
		assert.Equal(t, []string{"good", "also-good"}, names)
		var got []string
		for _, w := range rep.Warnings {
			got = append(got, w.String())
		}
		assert.Equal(t, []string{
			`flow.json:3:3: rule 1 (resource "bad"): warning: skipped, as Java skips a rule its validator refuses: count -1 is negative; it must be >= 0 (0 blocks every call)`,
			`flow.json:4:3: rule 2: warning: skipped, as Java skips a rule its validator refuses: resource is blank; a rule needs the name of the resource it protects`,
			`flow.json:5:3: rule 3 (resource "also-good"): warning: controlBehavior 9 is not one of 0..3; Java loads the rule and rejects calls over its count, as 0 (Reject) does`,
		}, got, "warnings name the rules by their index in the document")
	})
	t.Run("SkipInvalid still refuses what cannot be read", func(t *testing.T) {
		clearAll(t)
		_, err := datasource.Load("flow.json", []byte(`[{"resource":"a","count":"ten"},{"resource":"b"}]`), datasource.Flow,
			datasource.WithPolicy(datasource.SkipInvalid))
		require.Error(t, err, "fastjson refuses the whole document too")
		assert.Empty(t, flow.Rules())
	})
	t.Run("SkipInvalid in a combined document", func(t *testing.T) {
		clearAll(t)
		rep, err := datasource.LoadReport("rules.json",
			[]byte(`{"flow":[{"resource":"x","count":-2},{"resource":"y","count":1}],"paramFlow":[{"resource":"z","count":1}]}`),
			datasource.Combined, datasource.WithPolicy(datasource.SkipInvalid))
		require.NoError(t, err)
		assert.Equal(t, 1, rep.Rules)
		assert.Equal(t, 2, rep.Skipped)
		require.Len(t, rep.Warnings, 2)
		assert.Equal(t, "flow", rep.Warnings[0].Section)
		assert.Equal(t, "paramFlow", rep.Warnings[1].Section)
		assert.Contains(t, rep.Warnings[1].String(), "paramIdx is missing")
	})
	assert.Equal(t, "skip invalid rules", datasource.SkipInvalid.String())
	assert.Equal(t, "refuse the document", datasource.RefuseDocument.String())
}

// Under Java's policy a document whose every rule is invalid would load as
// no rules, clearing the rules in force (Java's buildFlowRuleMap does).
// Here only [] clears: such a document is refused and the rules stay.
func TestSkipInvalidNeverClearsWithADocumentOfInvalidRules(t *testing.T) {
	clearAll(t)
	_, err := datasource.LoadReport("flow.json", []byte(`[{"resource":"a","count":5}]`), datasource.Flow)
	require.NoError(t, err)
	_, err = datasource.LoadReport("flow.json", []byte(`[{"resource":"a","count":-1}]`), datasource.Flow,
		datasource.WithPolicy(datasource.SkipInvalid))
	require.ErrorIs(t, err, datasource.ErrAllInvalid)
	require.Len(t, flow.Rules(), 1, "the rules in force stay")
	assert.EqualValues(t, 5, flow.Rules()[0].Count)

	rep, err := datasource.LoadReport("flow.json", []byte(`[]`), datasource.Flow, datasource.WithPolicy(datasource.SkipInvalid))
	require.NoError(t, err)
	assert.Zero(t, rep.Rules)
	assert.Empty(t, flow.Rules(), "[] clears")
}
