package authority_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/authority"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func load(t *testing.T, rules ...authority.Rule) {
	t.Helper()
	require.NoError(t, authority.LoadRules(rules))
	t.Cleanup(func() { require.NoError(t, authority.LoadRules(nil)) })
}

// enter calls res from origin and reports the BlockError, if any.
func enter(res, origin string) *runtime.BlockError {
	ctx := runtime.EnterContext(context.Background(), "authority-test", origin)
	e, b := runtime.Entry(ctx, res)
	e.Exit()
	return b
}

// The table of Java's AuthoritySlotTest and AuthorityRuleCheckerTest, with
// origin appA, and the trimmed entry that Java does not match.
func TestAuthorityTable(t *testing.T) {
	tests := []struct {
		name     string
		limitApp string
		strategy authority.Strategy
		origin   string
		pass     bool
	}{
		{"white list naming the origin", "appA,appB", authority.White, "appA", true},
		{"white list without the origin", "appB", authority.White, "appA", false},
		{"black list naming the origin", "appA", authority.Black, "appA", false},
		{"black list without the origin", "appC", authority.Black, "appA", true},
		{"black list appD", "appD", authority.Black, "appA", true},
		{"black list naming the origin first", "appA,appC", authority.Black, "appA", false},
		{"white list appB, appE refuses appA", "appB, appE", authority.White, "appA", false},
		{"entries are trimmed: appE after a space is listed", "appB, appE", authority.White, "appE", true},
		{"black list entries are trimmed too", " appA ,appC", authority.Black, "appA", false},
		{"a prefix is not a match", "appAB", authority.White, "appA", false},
		{"no origin passes a white list", "appB", authority.White, "", true},
		{"no origin passes a black list", "appB", authority.Black, "", true},
		{"a long white list uses a map", "a1,a2,a3,a4,a5,a6,a7,a8,a9,appA", authority.White, "appA", true},
		{"a long white list without the origin", "a1,a2,a3,a4,a5,a6,a7,a8,a9,a10", authority.White, "appA", false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := "authority-table-" + string(rune('a'+i))
			load(t, authority.Rule{Resource: res, LimitApp: tt.limitApp, Strategy: tt.strategy})
			b := enter(res, tt.origin)
			if tt.pass {
				assert.Nil(t, b)
				return
			}
			require.NotNil(t, b)
			assert.Equal(t, runtime.BlockAuthority, b.BlockType())
			assert.Equal(t, tt.origin, b.TriggeredValue())
			rule, ok := b.Rule().(*authority.Rule)
			require.True(t, ok)
			assert.Equal(t, tt.limitApp, rule.LimitApp)
		})
	}
}

// Java's AuthoritySlotTest regex case: ".*" black appA blocks appA on every
// resource and lets appB through.
func TestRegexRuleAppliesToEveryMatchingResource(t *testing.T) {
	load(t, authority.Rule{Resource: ".*", Regex: true, LimitApp: "appA", Strategy: authority.Black})
	for _, res := range []string{"testRegex_1", "testRegex_2"} {
		assert.NotNil(t, enter(res, "appA"), res)
		assert.Nil(t, enter(res, "appB"), res)
	}
}

func TestOwnAndRegexRulesMustBothPass(t *testing.T) {
	load(t,
		authority.Rule{Resource: "both-rules", LimitApp: "appA,appB"},
		authority.Rule{Resource: "both-.*", Regex: true, LimitApp: "appB", Strategy: authority.Black},
	)
	assert.Nil(t, enter("both-rules", "appA"))
	assert.NotNil(t, enter("both-rules", "appB"), "the regex black list")
	assert.NotNil(t, enter("both-rules", "appC"), "the white list")
}

func TestStrictRefusesCallsWithoutOriginOnWhiteLists(t *testing.T) {
	load(t,
		authority.Rule{Resource: "strict-white", LimitApp: "appA"},
		authority.Rule{Resource: "strict-black", LimitApp: "appA", Strategy: authority.Black},
	)
	authority.SetStrict(true)
	t.Cleanup(func() { authority.SetStrict(false) })
	require.True(t, authority.Strict())

	b := enter("strict-white", "")
	require.NotNil(t, b)
	assert.Equal(t, "", b.TriggeredValue())
	_, b = runtime.Entry(context.Background(), "strict-white")
	assert.NotNil(t, b, "the default context has no origin")
	assert.Nil(t, enter("strict-black", ""))
	assert.Nil(t, enter("strict-white", "appA"))

	authority.SetStrict(false)
	assert.Nil(t, enter("strict-white", ""), "Java's default: no origin passes")
}

// Java's AuthorityRuleManagerTest.testIsValidRule, and the checks added here.
func TestValidateRules(t *testing.T) {
	tests := []struct {
		name   string
		rules  []authority.Rule
		index  int
		field  string // "" when valid
		reason string
	}{
		{"new AuthorityRule()", []authority.Rule{{}}, 0, "resource", "is required"},
		{"resource only", []authority.Rule{{Resource: "bcd"}}, 0, "limitApp", "is required"},
		{"resource and limitApp", []authority.Rule{{Resource: "bcd", LimitApp: "abc"}}, 0, "", ""},
		{"black list", []authority.Rule{{Resource: "bcd", LimitApp: "abc", Strategy: authority.Black}}, 0, "", ""},
		{"negative strategy", []authority.Rule{{Resource: "bcd", LimitApp: "abc", Strategy: -1}}, 0, "strategy", "-1 is negative"},
		{"bad regex", []authority.Rule{{Resource: "a(", Regex: true, LimitApp: "abc"}}, 0, "resource", "not a valid regular expression"},
		{"a pattern and a name may be equal", []authority.Rule{
			{Resource: "x", LimitApp: "a"}, {Resource: "x", Regex: true, LimitApp: "a"},
		}, 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := authority.ValidateRules(tt.rules)
			if tt.field == "" {
				require.NoError(t, err)
				return
			}
			var re *runtime.RuleError
			require.True(t, errors.As(err, &re), "error %v", err)
			assert.Equal(t, tt.index, re.Index)
			assert.Equal(t, tt.field, re.Field)
			assert.Contains(t, re.Reason, tt.reason)
		})
	}
}

// Java's AuthorityRuleManagerTest.testLoadRules: loading ["a,b"] keeps one
// rule. Where Java then loads [new AuthorityRule()] as zero rules (the
// invalid rule skipped), the set is refused here and the rule stays.
func TestLoadRulesRefusesTheWholeSet(t *testing.T) {
	load(t, authority.Rule{Resource: "load-test", LimitApp: "a,b"})
	require.Len(t, authority.Rules(), 1)
	require.Error(t, authority.LoadRules([]authority.Rule{{}}))
	require.Equal(t, []authority.Rule{{Resource: "load-test", LimitApp: "a,b"}}, authority.Rules())
	assert.NotNil(t, enter("load-test", "c"), "the rule in force still applies")
	require.NoError(t, authority.LoadRules(nil))
	assert.Empty(t, authority.Rules())
	assert.Nil(t, enter("load-test", "c"))
}

func TestPropertyUpdateLoadsRules(t *testing.T) {
	t.Cleanup(func() { require.NoError(t, authority.LoadRules(nil)) })
	require.NoError(t, authority.Property().Update([]authority.Rule{{Resource: "prop", LimitApp: "a"}}))
	assert.NotNil(t, enter("prop", "b"))
}

func TestRuleJSON(t *testing.T) {
	var rules []authority.Rule
	require.NoError(t, json.Unmarshal([]byte(`[
		{"resource":"a","limitApp":"appA,appB","id":3,"app":"demo","gmtCreate":1},
		{"resource":"b","limitApp":"appC","strategy":1},
		{"resource":"c","limitApp":"appC","strategy":"black"},
		{"resource":"d","limitApp":"appC","strategy":"AUTHORITY_WHITE","regex":true}]`), &rules))
	assert.Equal(t, []authority.Rule{
		{Resource: "a", LimitApp: "appA,appB"},
		{Resource: "b", LimitApp: "appC", Strategy: authority.Black},
		{Resource: "c", LimitApp: "appC", Strategy: authority.Black},
		{Resource: "d", LimitApp: "appC", Strategy: authority.White, Regex: true},
	}, rules)
	data, err := json.Marshal(rules[1])
	require.NoError(t, err)
	assert.JSONEq(t, `{"resource":"b","limitApp":"appC","strategy":1,"regex":false}`, string(data))
	var r authority.Rule
	require.ErrorContains(t, json.Unmarshal([]byte(`{"strategy":"grey"}`), &r), `"grey" is not one of`)
	assert.Equal(t, "Black", authority.Black.String())
}

// FuzzRuleJSON checks that no input makes decoding, validation or loading
// panic, and that a call under any valid rule is answered.
func FuzzRuleJSON(f *testing.F) {
	for _, seed := range []string{
		`{"resource":"a","limitApp":"appA,appB","strategy":0}`,
		`{"resource":".*","regex":true,"limitApp":"appA","strategy":"black"}`,
		`{"resource":"a","limitApp":" , "}`,
		`{"resource":"a(","regex":true,"limitApp":"x"}`,
		`{"strategy":1e400}`, `[]`, `null`, `{`,
	} {
		f.Add([]byte(seed), "appA")
	}
	f.Fuzz(func(t *testing.T, data []byte, origin string) {
		var r authority.Rule
		if json.Unmarshal(data, &r) != nil {
			return
		}
		r.Resource = "fuzz-" + strings.TrimSpace(r.Resource)
		if r.Regex {
			r.Resource = "fuzz-.*"
		}
		if authority.LoadRules([]authority.Rule{r}) != nil {
			return
		}
		defer authority.LoadRules(nil)
		enter("fuzz-resource", origin)
	})
}
