package datasource_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// A misspelt threshold left unset would load a rule that protects
// something else than its author meant ({"cuont": 20} is count 0: every
// call blocked): the document is refused, the rules in force stay, and
// the error names the field meant.
func TestMisspeltThresholdRefusesTheDocument(t *testing.T) {
	tests := []struct {
		name  string
		kind  datasource.Kind
		doc   string
		error string
	}{
		{"flow count", datasource.Flow, `[{"resource":"getOrder","cuont":20}]`,
			`flow.json: rule 0 (resource "getOrder"): count is not set, and the rule has "cuont": did you mean "count"?`},
		{"flow count in another case", datasource.Flow, `[{"resource":"a","count":1},{"resource":"getOrder","Cuont":20}]`,
			`rule 1 (resource "getOrder"): count is not set, and the rule has "Cuont": did you mean "count"?`},
		{"degrade slowRatioThreshold", datasource.Degrade, `[{"resource":"a","grade":0,"count":100,"timeWindow":10,"slowRatioTreshold":0.5}]`,
			`slowRatioThreshold is not set, and the rule has "slowRatioTreshold": did you mean "slowRatioThreshold"?`},
		{"system maxThread", datasource.System, `[{"maxThred":100}]`,
			`maxThread is not set, and the rule has "maxThred": did you mean "maxThread"?`},
		{"authority strategy", datasource.Authority, `[{"resource":"a","limitApp":"appA","stratgy":1}]`,
			`strategy is not set, and the rule has "stratgy": did you mean "strategy"?`},
		{"paramFlow count", datasource.ParamFlow, `[{"resource":"a","paramIdx":0,"coutn":5}]`,
			`count is not set, and the rule has "coutn": did you mean "count"?`},
		{"flow count, with comments (the lenient reader)", datasource.Flow, "[{\"resource\":\"getOrder\", // hot\n\"cuont\":20}]",
			`count is not set, and the rule has "cuont": did you mean "count"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, policy := range []datasource.Policy{datasource.RefuseDocument, datasource.SkipInvalid} {
				_, err := datasource.Load(tt.kind.Name()+".json", []byte(`[]`), tt.kind)
				require.NoError(t, err)
				_, err = datasource.Load(tt.kind.Name()+".json", []byte(tt.doc), tt.kind, datasource.WithPolicy(policy))
				require.Error(t, err, policy)
				assert.Contains(t, err.Error(), tt.error, policy)
				assert.Zero(t, tt.kind.Count(), "nothing loaded (%s)", policy)
			}
		})
	}
}

// The same document in a combined file is refused in its section.
func TestMisspeltThresholdRefusesACombinedDocument(t *testing.T) {
	_, err := datasource.Load("rules.json", []byte(`{"flow":[{"resource":"getOrder","count":5}]}`), datasource.Combined)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = datasource.Load("clear", []byte(`{"flow":[]}`), datasource.Combined) })

	_, err = datasource.Load("rules.json", []byte(`{"flow":[{"resource":"getOrder","cuont":20}]}`), datasource.Combined)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `did you mean "count"?`)
	assert.Equal(t, 1, datasource.Flow.Count(), "the rules in force stay")
	assert.Contains(t, string(mustEncode(t, datasource.Flow)), `"count":5`)
}

// A threshold written out is what its author meant, even beside a stray
// misspelling of it, and a misspelling of a field that is not a
// threshold stays a warning.
func TestMisspeltFieldLoadsWhenTheThresholdIsWritten(t *testing.T) {
	tests := []struct {
		name string
		kind datasource.Kind
		doc  string
	}{
		{"count 0 written out", datasource.Flow, `[{"resource":"getOrder","count":0}]`},
		{"count beside its misspelling", datasource.Flow, `[{"resource":"getOrder","count":20,"cuont":20}]`},
		{"a misspelt field that is no threshold", datasource.Flow, `[{"resource":"getOrder","count":20,"stratgy":0}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := datasource.Load(tt.kind.Name()+".json", []byte(tt.doc), tt.kind)
			require.NoError(t, err)
			t.Cleanup(func() { _, _ = datasource.Load("clear", []byte(`[]`), tt.kind) })
			assert.Equal(t, 1, tt.kind.Count())
		})
	}
}

func mustEncode(t *testing.T, k datasource.Kind) []byte {
	t.Helper()
	data, err := k.Encode()
	require.NoError(t, err)
	return data
}
