package datasource_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

func TestDecodeErrorsArePrecise(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"invalid rule names index resource field and reason",
			`[{"resource":"a","count":1},{"resource":"b"},{"resource":"getOrder","controlBehavior":7}]`,
			`flow.json: rule 2 (resource "getOrder"): controlBehavior 7 is not one of 0..3`},
		{"every invalid rule is reported, one per line",
			`[{"resource":"","count":-1}]`,
			"flow.json: rule 0: resource is blank\nflow.json: rule 0: count -1 is not a number >= 0"},
		{"enum refused by UnmarshalJSON still names its field",
			`[{"resource":"a"},{"resource":"getOrder","grade":5}]`,
			`flow.json: rule 1 (resource "getOrder"): grade 5 is not one of 0 (THREAD), 1 (QPS)`},
		{"enum name refused",
			`[{"resource":"getOrder","grade":"QPX"}]`,
			`flow.json: rule 0 (resource "getOrder"): grade "QPX" is not one of 0 (THREAD), 1 (QPS)`},
		{"wrong JSON type names the field",
			`[{"resource":"getOrder","count":"ten"}]`,
			`flow.json: rule 0 (resource "getOrder"): count "ten" is a string, want a number`},
		{"huge number does not fit",
			`[{"resource":"getOrder","count":1e400}]`,
			`flow.json: rule 0 (resource "getOrder"): count 1e400 does not fit a float64`},
		{"NaN is a syntax error with a position and a hint",
			"[\n  {\"resource\": \"a\", \"count\": NaN}\n]",
			`flow.json:2:30: JSON syntax error: invalid value NaN (NaN and Infinity are not JSON numbers)`},
		{"Infinity is a syntax error too",
			`[{"resource":"a","count":Infinity}]`,
			`flow.json:1:26: JSON syntax error: invalid value Infinity (NaN and Infinity are not JSON numbers)`},
		{"truncated file says so at its end",
			"[\n {\"resource\": \"a\",\n \"count\": 1",
			`flow.json:3:12: JSON syntax error: unexpected end of JSON input (the file is truncated or still being written)`},
		{"single quotes",
			`[{'resource': 'a'}]`,
			`flow.json:1:3: JSON syntax error: invalid character '\'' at start of value (JSON strings take double quotes)`},
		{"empty document never clears",
			"",
			`flow.json: document is empty (write [] to clear the rules)`},
		{"whitespace document never clears",
			" \n\t\n",
			`flow.json: document is empty (write [] to clear the rules)`},
		{"null document never clears",
			"null",
			`flow.json: want a JSON array of flow rules, found null (write [] to clear the rules)`},
		{"object where an array is wanted hints at Combined",
			`{"flow": []}`,
			`flow.json: want a JSON array of flow rules, found an object (a combined file {"flow": [...], ...} is read with datasource.Combined)`},
		{"null rule",
			`[null]`,
			`flow.json: rule 0: is null, want a rule object`},
		{"rule that is not an object",
			`[{"resource":"a"}, 3]`,
			`flow.json: rule 1: is a number, want a rule object`},
		{"invalid UTF-8 with position",
			"[{\"resource\": \"a\xff\"}]",
			`flow.json:1:17: invalid UTF-8: byte \xff at offset 16, in "esource\": \"a\xff\"}]" (save the file as UTF-8)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fakerules.New("flow")
			n, err := datasource.Load("flow.json", []byte(tt.doc), m.Kind())
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.Zero(t, n)
			assert.Zero(t, m.Loads(), "nothing is loaded from a refused document")
			var de *datasource.Error
			require.ErrorAs(t, err, &de)
		})
	}
}

func TestRuleErrorsAreReachableWithErrorsAs(t *testing.T) {
	m := fakerules.New("flow")
	_, err := datasource.Load("flow.json", []byte(`[{"resource":"a"},{"resource":"b","controlBehavior":9}]`), m.Kind())
	var re *runtime.RuleError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 1, re.Index)
	assert.Equal(t, "b", re.Resource)
	assert.Equal(t, "controlBehavior", re.Field)
}

func TestCategoriesAreReachableWithErrorsIs(t *testing.T) {
	k := fakerules.New("flow").Kind()
	_, err := k.Decode("f", []byte("  "))
	assert.ErrorIs(t, err, datasource.ErrEmpty)
	_, err = k.Decode("f", []byte("[\xc3"))
	assert.ErrorIs(t, err, datasource.ErrInvalidUTF8)
	_, err = k.Decode("f", []byte("[1,"))
	assert.ErrorIs(t, err, datasource.ErrSyntax)
}

func TestLoadAcceptsJavaShapes(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []fakerules.Rule
	}{
		{"Java defaults fill absent fields", `[{"resource":"a"}]`,
			[]fakerules.Rule{{Resource: "a", Grade: 1}}},
		{"count 0 is valid", `[{"resource":"a","count":0,"grade":0}]`,
			[]fakerules.Rule{{Resource: "a", Grade: 0}}},
		{"unknown dashboard fields are accepted",
			`[{"id":3,"app":"order-svc","ip":"10.0.0.1","port":8719,"gmtCreate":1700000000000,"gmtModified":1700000000000,` +
				`"passCount":null,"clusterConfig":{"fallbackToLocalWhenFail":true},"resource":"a","count":5}]`,
			[]fakerules.Rule{{Resource: "a", Grade: 1, Count: 5}}},
		{"readable enum names", `[{"resource":"a","grade":"thread"}]`,
			[]fakerules.Rule{{Resource: "a", Grade: 0}}},
		{"a UTF-8 byte order mark is skipped", "\xEF\xBB\xBF[{\"resource\":\"a\"}]",
			[]fakerules.Rule{{Resource: "a", Grade: 1}}},
		{"non-ASCII resource names survive", `[{"resource":"订单/查询"}]`,
			[]fakerules.Rule{{Resource: "订单/查询", Grade: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fakerules.New("flow")
			n, err := datasource.Load("flow.json", []byte(tt.doc), m.Kind())
			require.NoError(t, err)
			assert.Equal(t, len(tt.want), n)
			assert.Equal(t, tt.want, m.Rules())
		})
	}
}

func TestEmptyArrayClears(t *testing.T) {
	m := fakerules.New("flow")
	_, err := datasource.Load("f", []byte(`[{"resource":"a"}]`), m.Kind())
	require.NoError(t, err)
	n, err := datasource.Load("f", []byte(` [ ] `), m.Kind())
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Empty(t, m.Rules())
}

func TestRefusedDocumentKeepsRulesInForce(t *testing.T) {
	m := fakerules.New("flow")
	_, err := datasource.Load("f", []byte(`[{"resource":"a"}]`), m.Kind())
	require.NoError(t, err)
	for _, bad := range []string{``, `[`, `[{"resource":"b"},{"resource":""}]`, `null`, `{}`, "[\xff]"} {
		_, err := datasource.Load("f", []byte(bad), m.Kind())
		require.Error(t, err, bad)
		assert.Equal(t, []string{"a"}, m.Resources(), "after %q", bad)
	}
}

func TestLoadGoesThroughTheProperty(t *testing.T) {
	m := fakerules.New("flow")
	var got [][]fakerules.Rule
	m.Property().Listen(func(r []fakerules.Rule) { got = append(got, r) })
	_, err := datasource.Load("f", []byte(`[{"resource":"a"}]`), m.Kind())
	require.NoError(t, err)
	_, _ = datasource.Load("f", []byte(`[{"resource":""}]`), m.Kind())
	require.Len(t, got, 1, "listeners hear loads, not refusals")
	assert.Equal(t, "a", got[0][0].Resource)
}

func TestLoadFailureAfterValidationIsReported(t *testing.T) {
	m := fakerules.New("flow")
	m.FailLoads(fakerules.ErrBroken)
	_, err := datasource.Load("flow.json", []byte(`[{"resource":"a"}]`), m.Kind())
	require.ErrorIs(t, err, fakerules.ErrBroken)
	assert.Equal(t, "flow.json: flow rules refused: the rule store is broken", err.Error())
}

func TestEncodeRoundTrips(t *testing.T) {
	m := fakerules.New("flow")
	doc := `[{"resource":"a","count":2.5,"grade":0,"controlBehavior":2},{"resource":"b","regex":true}]`
	_, err := datasource.Load("f", []byte(doc), m.Kind())
	require.NoError(t, err)
	out, err := m.Kind().Encode()
	require.NoError(t, err)
	m2 := fakerules.New("flow")
	_, err = datasource.Load("f", out, m2.Kind())
	require.NoError(t, err)
	assert.Equal(t, m.Rules(), m2.Rules())

	empty, err := fakerules.New("flow").Kind().Encode()
	require.NoError(t, err)
	assert.Equal(t, "[]", string(empty), "no rules encode as [], which clears, never as null")
}

func TestDecodeLargeDocument(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 100_000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"resource":"r`)
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(`","count":10}`)
	}
	b.WriteString("]")
	m := fakerules.New("flow")
	n, err := datasource.Load("f", []byte(b.String()), m.Kind())
	require.NoError(t, err)
	assert.Equal(t, 100_000, n)
	assert.Len(t, m.Rules(), 100_000)
}

func TestErrorWithoutCause(t *testing.T) {
	e := &datasource.Error{Name: "x.json"}
	assert.Equal(t, "x.json: refused", e.Error())
	assert.Nil(t, e.Unwrap())
	assert.False(t, errors.Is(e, datasource.ErrEmpty))
}
