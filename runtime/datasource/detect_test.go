package datasource_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

func TestDetectKind(t *testing.T) {
	tests := []struct {
		name, file, doc string
		want            datasource.Kind
	}{
		{"object is combined", "rules.json", `{"flow":[]}`, datasource.Combined},
		{"Spring's flowrule.json", "flowrule.json", `[]`, datasource.Flow},
		{"param-flow wins over flow", "sentinel-param-flow.json", `[]`, datasource.ParamFlow},
		{"hot param", "hotparam.json", `[]`, datasource.ParamFlow},
		{"degrade", "degrade-rules.json", `[]`, datasource.Degrade},
		{"circuit breaker", "circuitbreaker.json", `[]`, datasource.Degrade},
		{"system", "SYSTEM.json", `[]`, datasource.System},
		{"authority", "auth-rules.json", `[]`, datasource.Authority},
		{"paramIdx field", "rules.json", `[{"resource":"a","paramIdx":0,"count":1}]`, datasource.ParamFlow},
		{"timeWindow field", "rules.json", `[{"resource":"a","timeWindow":1,"count":1}]`, datasource.Degrade},
		{"system field", "rules.json", `[{"avgRt":10}]`, datasource.System},
		{"controlBehavior field", "rules.json", `[{"resource":"a","controlBehavior":0,"count":1}]`, datasource.Flow},
		{"limitApp and strategy without count", "rules.json", `[{"resource":"a","limitApp":"x","strategy":1}]`, datasource.Authority},
		{"just a count is a flow rule with defaults", "rules.json", `[{"resource":"a","count":1}]`, datasource.Flow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := datasource.DetectKind(tt.file, []byte(tt.doc))
			require.NoError(t, err)
			assert.Equal(t, tt.want.Name(), k.Name())
		})
	}
}

func TestDetectKindFailures(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"cannot tell", `[]`, "rules.json: cannot tell which kind of rules this file holds; name it after its kind (flow.json, degrade.json, system.json, authority.json, paramflow.json, adaptive.json)"},
		{"not an array", `"x"`, "rules.json: want a JSON array of rules or a combined object, found a string"},
		{"syntax", `[{]`, "rules.json:1:3: JSON syntax error: invalid character ']' at start of value"},
		{"empty", ``, "rules.json: document is empty (write [] to clear the rules)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := datasource.DetectKind("rules.json", []byte(tt.doc))
			assert.EqualError(t, err, tt.want)
		})
	}
}

func TestTypeMismatchReasons(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`[{"resource":{}}]`, `rule 0: resource {} is an object, want a string`},
		{`[{"resource":"a","regex":"yes"}]`, `rule 0 (resource "a"): regex "yes" is a string, want true or false`},
		{`[{"resource":"a","count":[1]}]`, `rule 0 (resource "a"): count [1] is an array, want a number`},
		{`[{"resource":"a","count":{"v":1}}]`, `rule 0 (resource "a"): count {"v":1} is an object, want a number`},
		{`[{"resource":"a","controlBehavior":1.5}]`, `rule 0 (resource "a"): controlBehavior 1.5 is not a whole number`},
		{`[{"resource":"a","controlBehavior":1e30}]`, `rule 0 (resource "a"): controlBehavior 1e30 is out of range for int`},
		{`[{"resource":"a","controlBehavior":true}]`, `rule 0 (resource "a"): controlBehavior true is a boolean, want a number`},
		{`[{"resource":"a","count":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]`,
			`rule 0 (resource "a"): count "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... is a string, want a number`},
	}
	for _, tt := range tests {
		_, err := datasource.Load("f", []byte(tt.doc), fakerules.New("flow").Kind())
		assert.EqualError(t, err, "f: "+tt.want, tt.doc)
	}
}

func TestDetectKindReadsCommentsAndTrailingText(t *testing.T) {
	k, err := datasource.DetectKind("rules.json", []byte("// hot parameters\n[{\"resource\": \"a\", \"paramIdx\": 0}]\ngarbage"))
	require.NoError(t, err)
	assert.Equal(t, "paramFlow", k.Name())
	k, err = datasource.DetectKind("rules.json", []byte("/* all kinds */ {\"flow\": []}"))
	require.NoError(t, err)
	assert.Equal(t, "combined", k.Name())
}
