package datasource_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// Adaptive rules load like the other kinds: alone, or under "adaptive" in
// a combined document, with problems named by file, line, rule and field.
func TestAdaptiveRulesLoadAndWriteBack(t *testing.T) {
	t.Cleanup(func() { _ = adaptive.LoadRules(nil) })
	set, err := datasource.Adaptive.Decode("adaptive.json", []byte(`[{"resource":"getOrder","maxLimit":200,"rttTolerance":1.5}]`))
	require.NoError(t, err)
	require.NoError(t, set.Load())
	require.Len(t, adaptive.Rules(), 1)
	assert.Equal(t, 200, adaptive.Rules()[0].MaxLimit)
	assert.Equal(t, 1, datasource.Adaptive.Count())

	out, err := datasource.Adaptive.Encode()
	require.NoError(t, err)
	assert.JSONEq(t, `[{"resource":"getOrder","minLimit":3,"maxLimit":200,"initialLimit":20,"rttTolerance":1.5,
		"sampleIntervalMs":100,"minSamples":20,"probeIntervalMs":60000,"probeSamples":50,"maxQueueingTimeMs":0}]`, string(out))
	again, err := datasource.Adaptive.Decode("adaptive.json", out)
	require.NoError(t, err)
	require.NoError(t, again.Load())
	assert.Equal(t, 200, adaptive.Rules()[0].MaxLimit, "what is written back loads the same")
}

func TestAdaptiveProblemsArePositioned(t *testing.T) {
	doc := "[\n  {\"resource\": \"a\"},\n  {\"resource\": \"b\", \"minLimit\": 10, \"maxLimit\": 5}\n]"
	ps := datasource.Check("adaptive.json", []byte(doc), datasource.Adaptive, nil)
	assert.Equal(t, []string{`adaptive.json:3:3: rule 1 (resource "b"): maxLimit 5 is below minLimit 10`}, problemStrings(ps))

	ps = datasource.Check("rules.json", []byte(`{"flow": [], "adaptive": [{"resource": "a", "rttTolerance": 0.5}]}`), datasource.Combined, nil)
	require.Len(t, ps, 1)
	assert.Equal(t, "adaptive", ps[0].Section)
	assert.Equal(t, "rttTolerance", ps[0].Field)
	assert.Equal(t, 0, ps[0].Rule)

	ps = datasource.Check("adaptive.json", []byte(`[{"resource": "a", "maxLimit": "many"}]`), datasource.Adaptive, nil)
	require.Len(t, ps, 1)
	assert.Equal(t, "maxLimit", ps[0].Field)
}

func TestAMalformedAdaptiveDocumentKeepsTheRulesInForce(t *testing.T) {
	t.Cleanup(func() { _ = adaptive.LoadRules(nil) })
	require.NoError(t, adaptive.LoadRules([]adaptive.Rule{{Resource: "kept"}}))
	set, err := datasource.Combined.Decode("rules.json", []byte(`{"adaptive": [{"resource": "a", "minLimit": -1}]}`))
	if err == nil {
		err = set.Load()
	}
	require.Error(t, err)
	assert.Equal(t, "kept", adaptive.Rules()[0].Resource)
}

func TestDetectKindKnowsAdaptiveFiles(t *testing.T) {
	for name, doc := range map[string]string{
		"adaptive.json":          `[{"resource": "a"}]`,
		"concurrency-rules.json": `[{"resource": "a"}]`,
		"rules.json":             `[{"resource": "a", "rttTolerance": 1.2}]`,
		"limits.json":            `[{"resource": "a", "maxLimit": 50, "maxQueueingTimeMs": 5}]`,
	} {
		k, err := datasource.DetectKind(name, []byte(doc))
		require.NoError(t, err, name)
		assert.Equal(t, "adaptive", k.Name(), name)
	}
}

// A misspelt field is a warning that names the field meant and its real
// default.
func TestAMisspeltAdaptiveFieldIsAWarningWithItsDefault(t *testing.T) {
	ps := datasource.Check("adaptive.json", []byte(`[{"resource":"a","maxLimt":5}]`), datasource.Adaptive, nil)
	assert.Equal(t, []string{`adaptive.json:1:18: rule 0 (resource "a"): warning: maxLimt is not a field of this rule; did you mean "maxLimit"? It is ignored, as Java ignores unknown fields, so maxLimit keeps its default 1000`}, problemStrings(ps))
}
