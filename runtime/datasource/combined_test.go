package datasource_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

type combo struct {
	flow, degrade *fakerules.Manager
	kind          datasource.Kind
}

func newCombo() combo {
	c := combo{flow: fakerules.New("flow"), degrade: fakerules.New("degrade")}
	c.kind = datasource.NewCombined(c.flow.Kind(), c.degrade.Kind())
	return c
}

func TestCombinedLoadsEveryKind(t *testing.T) {
	c := newCombo()
	n, err := datasource.Load("rules.json", []byte(`{"flow":[{"resource":"a"},{"resource":"b"}],"degrade":[{"resource":"c"}]}`), c.kind)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	assert.Equal(t, []string{"a", "b"}, c.flow.Resources())
	assert.Equal(t, []string{"c"}, c.degrade.Resources())
}

func TestCombinedAbsentKeyLeavesKindAloneAndEmptyArrayClears(t *testing.T) {
	c := newCombo()
	_, err := datasource.Load("rules.json", []byte(`{"flow":[{"resource":"a"}],"degrade":[{"resource":"c"}]}`), c.kind)
	require.NoError(t, err)
	_, err = datasource.Load("rules.json", []byte(`{"flow":[]}`), c.kind)
	require.NoError(t, err)
	assert.Empty(t, c.flow.Rules())
	assert.Equal(t, []string{"c"}, c.degrade.Resources())
}

func TestCombinedIsAllOrNothingAcrossKinds(t *testing.T) {
	c := newCombo()
	_, err := datasource.Load("rules.json", []byte(`{"flow":[{"resource":"a"}],"degrade":[{"resource":"c"}]}`), c.kind)
	require.NoError(t, err)
	_, err = datasource.Load("rules.json", []byte(`{"flow":[{"resource":"new"}],"degrade":[{"resource":"d","controlBehavior":9}]}`), c.kind)
	require.EqualError(t, err, `rules.json: degrade: rule 0 (resource "d"): controlBehavior 9 is not one of 0..3`)
	assert.Equal(t, []string{"a"}, c.flow.Resources(), "a valid flow section is not loaded when degrade is invalid")
	assert.Equal(t, []string{"c"}, c.degrade.Resources())
}

func TestCombinedPutsEarlierKindsBackWhenALaterLoadFails(t *testing.T) {
	c := newCombo()
	_, err := datasource.Load("rules.json", []byte(`{"flow":[{"resource":"a"}],"degrade":[{"resource":"c"}]}`), c.kind)
	require.NoError(t, err)
	c.degrade.FailLoads(fakerules.ErrBroken)
	_, err = datasource.Load("rules.json", []byte(`{"flow":[{"resource":"new"}],"degrade":[{"resource":"d"}]}`), c.kind)
	require.ErrorIs(t, err, fakerules.ErrBroken)
	assert.Equal(t, "rules.json: degrade: degrade rules refused: the rule store is broken\n"+
		"rules.json: flow loaded before degrade failed; their previous rules were put back", err.Error())
	assert.Equal(t, []string{"a"}, c.flow.Resources())
	assert.Equal(t, []string{"c"}, c.degrade.Resources())
}

func TestCombinedSaysWhenPuttingBackFails(t *testing.T) {
	c := newCombo()
	_, err := datasource.Load("rules.json", []byte(`{"flow":[{"resource":"a"}]}`), c.kind)
	require.NoError(t, err)
	c.degrade.FailLoads(fakerules.ErrBroken)
	// The flow load succeeds, then breaks, so the restore fails as well.
	c.flow.Property().Listen(func([]fakerules.Rule) { c.flow.FailLoads(fakerules.ErrBroken) })
	_, err = datasource.Load("rules.json", []byte(`{"flow":[{"resource":"new"}],"degrade":[{"resource":"d"}]}`), c.kind)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "putting their previous rules back failed too")
	assert.Contains(t, err.Error(), "the new flow rules are in force")
	assert.Equal(t, []string{"new"}, c.flow.Resources())
}

func TestCombinedErrors(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"unknown key suggests the nearest", `{"flwo":[]}`, `rules.json: unknown rule kind "flwo" (did you mean "flow"?)`},
		{"unknown key lists the known", `{"gateway":[]}`, `rules.json: unknown rule kind "gateway" (want one of flow, degrade)`},
		{"array where an object is wanted", `[]`, `rules.json: want a JSON object {"flow": [...], ...}, found an array`},
		{"null document", `null`, `rules.json: want a JSON object {"flow": [...], ...}, found null`},
		{"null section", `{"flow":null}`, `rules.json: flow: is null, want an array of flow rules ([] clears them)`},
		{"section that is not an array", `{"degrade":{}}`, `rules.json: degrade: is an object, want an array of degrade rules ([] clears them)`},
		{"syntax error has the file's position", "{\"flow\": [\n{\"resource\" \"a\"}]}", `rules.json:2:13: JSON syntax error: invalid character '"' after object name`},
		{"errors in several kinds all come out", `{"flow":[{"resource":""}],"degrade":[{"resource":"x","grade":3}]}`,
			"rules.json: flow: rule 0: resource is blank\nrules.json: degrade: rule 0 (resource \"x\"): grade 3 is not one of 0 (THREAD), 1 (QPS)"},
		{"empty", ``, `rules.json: document is empty (write [] to clear the rules)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCombo()
			_, err := datasource.Load("rules.json", []byte(tt.doc), c.kind)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.Zero(t, c.flow.Loads()+c.degrade.Loads())
		})
	}
}

func TestCombinedEncodeRoundTrips(t *testing.T) {
	c := newCombo()
	_, err := datasource.Load("rules.json", []byte(`{"flow":[{"resource":"a","count":3}],"degrade":[]}`), c.kind)
	require.NoError(t, err)
	out, err := c.kind.Encode()
	require.NoError(t, err)
	var shape map[string][]map[string]any
	require.NoError(t, json.Unmarshal(out, &shape), string(out))
	assert.Len(t, shape["flow"], 1)
	assert.NotNil(t, shape["degrade"])
	assert.Empty(t, shape["degrade"])

	c2 := newCombo()
	_, err = datasource.Load("rules.json", out, c2.kind)
	require.NoError(t, err)
	assert.Equal(t, c.flow.Rules(), c2.flow.Rules())
}
