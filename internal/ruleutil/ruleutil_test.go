package ruleutil

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var grades = map[int][]string{0: {"THREAD"}, 1: {"QPS"}}

func TestDecodeEnum(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr string
	}{
		{`1`, 1, ""},
		{`0`, 0, ""},
		{` 1.0 `, 1, ""},
		{`"QPS"`, 1, ""},
		{`"qps"`, 1, ""},
		{`"1"`, 1, ""},
		{`"thread"`, 0, ""},
		{`7`, 0, "7 is not one of 0 (THREAD), 1 (QPS)"},
		{`1.5`, 0, "1.5 is not a whole number"},
		{`"sideways"`, 0, `"sideways" is not one of 0 (THREAD), 1 (QPS)`},
		{`true`, 0, "true is not a number or a name"},
		{`1e400`, 0, "not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := DecodeEnum([]byte(tt.in), grades)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCompileResourceRegexMatchesWholeNames(t *testing.T) {
	re, err := CompileResourceRegex(`get.*`)
	require.NoError(t, err)
	assert.True(t, re.MatchString("getOrder"))
	assert.False(t, re.MatchString("forgetOrder"), "Java's matches(): the whole name")
	_, err = CompileResourceRegex(`(`)
	assert.Error(t, err)
}

func TestLimitApp(t *testing.T) {
	assert.Equal(t, "default", LimitApp(""))
	assert.Equal(t, "default", LimitApp("  "))
	assert.Equal(t, "appA", LimitApp("appA"))
}

func TestEnum(t *testing.T) {
	e := Enum{Type: "Grade", Names: grades}
	assert.Equal(t, "QPS", e.String(1))
	assert.Equal(t, "Grade(9)", e.String(9))
	b, err := e.Marshal(1)
	require.NoError(t, err)
	assert.Equal(t, "1", string(b))
	code := 5
	require.NoError(t, e.Unmarshal([]byte(`"thread"`), &code))
	assert.Equal(t, 0, code)
	assert.Error(t, e.Unmarshal([]byte(`7`), &code))
	assert.Equal(t, 0, code, "a refused value leaves the field alone")
}

// An open enum takes any whole number in Java's int range, as Java's int
// fields do; names and out-of-range numbers are still checked.
func TestOpenEnumTakesAnyIntCode(t *testing.T) {
	e := Enum{Type: "Strategy", Names: map[int][]string{0: {"Direct"}, 1: {"Relate"}}, Open: true}
	for in, want := range map[string]int{`7`: 7, `-3`: -3, `2.0`: 2, `"Relate"`: 1, `"1"`: 1} {
		var code int
		require.NoError(t, e.Unmarshal([]byte(in), &code), in)
		assert.Equal(t, want, code, in)
	}
	for _, in := range []string{`"Sideways"`, `1.5`, `3e10`, `true`} {
		var code int
		assert.Error(t, e.Unmarshal([]byte(in), &code), in)
	}
	assert.Equal(t, "Strategy(7)", e.String(7))
}
