package datasource_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

func problemStrings(ps []datasource.Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func TestCheckReportsWhatLoadingWouldRefuse(t *testing.T) {
	m := fakerules.New("flow")
	ps := datasource.Check("flow.json", []byte(`[{"resource":"a"},{"resource":"getOrder","controlBehavior":7},{"resource":"x","grade":9}]`), m.Kind(), nil)
	assert.Equal(t, []string{
		`flow.json:1:63: rule 2 (resource "x"): grade 9 is not one of 0 (THREAD), 1 (QPS)`,
	}, problemStrings(ps), "decode errors stop before validation, as loading does")

	ps = datasource.Check("flow.json", []byte(`[{"resource":"a"},{"resource":"getOrder","controlBehavior":7}]`), m.Kind(), nil)
	require.Len(t, ps, 1)
	assert.Equal(t, datasource.Problem{File: "flow.json", Line: 1, Column: 19, Rule: 1, Resource: "getOrder", Field: "controlBehavior",
		Severity: datasource.SeverityError, Message: "7 is not one of 0..3"}, ps[0])
	assert.Zero(t, m.Loads(), "checking loads nothing")
}

func TestCheckSyntaxProblemHasPosition(t *testing.T) {
	ps := datasource.Check("flow.json", []byte("[\n{\"resource\": NaN}]"), fakerules.New("flow").Kind(), nil)
	require.Len(t, ps, 1)
	assert.Equal(t, 2, ps[0].Line)
	assert.Equal(t, 14, ps[0].Column)
	assert.Equal(t, -1, ps[0].Rule)
	assert.Equal(t, "flow.json:2:14: JSON syntax error: invalid value NaN (NaN and Infinity are not JSON numbers)", ps[0].String())
}

func TestCheckWarnsOnUndeclaredResources(t *testing.T) {
	declared := []string{"getOrder", "listOrders", "/api/order"}
	doc := `[{"resource":"getOrder"},{"resource":"getOrdr"},{"resource":"deleteEverything"},` +
		`{"resource":"list.*","regex":true},{"resource":"nothing.*","regex":true},{"resource":"GETORDER"}]`
	ps := datasource.Check("flow.json", []byte(doc), fakerules.New("flow").Kind(), declared)
	assert.Equal(t, []string{
		`flow.json:1:26: rule 1 (resource "getOrdr"): warning: no declared resource is named "getOrdr" (did you mean "getOrder"?)`,
		`flow.json:1:49: rule 2 (resource "deleteEverything"): warning: no declared resource is named "deleteEverything"; this rule protects nothing`,
		`flow.json:1:116: rule 4 (resource "nothing.*"): warning: the pattern "nothing.*" matches no declared resource`,
		`flow.json:1:154: rule 5 (resource "GETORDER"): warning: no declared resource is named "GETORDER" (did you mean "getOrder"?)`,
	}, problemStrings(ps))
	for _, p := range ps {
		assert.Equal(t, datasource.SeverityWarning, p.Severity)
	}
}

func TestCheckWithoutDeclaredSkipsTheCrossCheck(t *testing.T) {
	ps := datasource.Check("flow.json", []byte(`[{"resource":"anything"}]`), fakerules.New("flow").Kind(), nil)
	assert.Empty(t, ps)
	ps = datasource.Check("flow.json", []byte(`[{"resource":"anything"}]`), fakerules.New("flow").Kind(), []string{})
	assert.Len(t, ps, 1, "an empty declared list warns on every rule")
}

func TestCheckCombinedNamesTheSection(t *testing.T) {
	c := newCombo()
	ps := datasource.Check("rules.json", []byte(`{"flow":[{"resource":"getOrdr"}],"degrade":[{"resource":""}]}`), c.kind, []string{"getOrder"})
	assert.Equal(t, []string{
		`rules.json:1:10: flow: rule 0 (resource "getOrdr"): warning: no declared resource is named "getOrdr" (did you mean "getOrder"?)`,
		`rules.json:1:45: degrade: rule 0: resource is blank`,
	}, problemStrings(ps))
}

func TestCheckFilesReportsUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "flow.json")
	require.NoError(t, os.WriteFile(big, make([]byte, datasource.DefaultMaxSize+1), 0o644))
	ps, err := datasource.CheckFiles([]string{filepath.Join(dir, "missing.json"), big}, nil)
	require.NoError(t, err)
	require.Len(t, ps, 2)
	assert.Contains(t, ps[0].String(), "missing.json: file is missing")
	assert.Contains(t, ps[1].String(), "over the 4194304-byte cap; refused, not truncated")

	_, err = datasource.CheckFiles(nil, nil)
	assert.Error(t, err)
}

func TestSeverityString(t *testing.T) {
	assert.Equal(t, "error", datasource.SeverityError.String())
	assert.Equal(t, "warning", datasource.SeverityWarning.String())
}

func TestCheckLocatesRulesInPrettyFiles(t *testing.T) {
	doc := "\xEF\xBB\xBF[\n  {\"resource\": \"a\"},\n\n    {\"resource\": \"\"}\n]"
	ps := datasource.Check("flow.json", []byte(doc), fakerules.New("flow").Kind(), nil)
	require.Len(t, ps, 1)
	assert.Equal(t, "flow.json:4:5: rule 1: resource is blank", ps[0].String())

	combined := "{\n \"degrade\": {},\n \"flow\": [\n  {\"resource\": \"\"}]}"
	ps = datasource.Check("rules.json", []byte(combined), newCombo().kind, nil)
	assert.Equal(t, []string{
		"rules.json: degrade: is an object, want an array of degrade rules ([] clears them)",
		"rules.json:4:3: flow: rule 0: resource is blank",
	}, problemStrings(ps), "problems without a place first, then in document order")
}
