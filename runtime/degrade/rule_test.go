package degrade_test

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pastJavaInt is Java's Integer.MAX_VALUE + 1, a variable so that the
// tests compile where int has 32 bits.
var pastJavaInt int64 = math.MaxInt32 + 1

// valid is a rule every case below starts from.
func valid() degrade.Rule {
	return degrade.Rule{Resource: "abc", Grade: degrade.SlowRequestRatio, Count: 10, TimeWindow: 5, SlowRatioThreshold: 1}
}

// Java's DegradeRuleManagerTest.testIsValidRule, and the checks added here.
func TestValidateRules(t *testing.T) {
	// Where int has 32 bits (GOARCH=386), Java's MAX_VALUE + 1 wraps to
	// MinInt32: refused as well, for its sign.
	beyondInt := "beyond Java's int range"
	if strconv.IntSize == 32 {
		beyondInt = "must be > 0"
	}
	tests := []struct {
		name   string
		rule   func(r *degrade.Rule)
		field  string // "" when valid
		reason string
	}{
		{"the base rule is valid", func(*degrade.Rule) {}, "", ""},
		{"new DegradeRule(abc): timeWindow 0", func(r *degrade.Rule) { r.TimeWindow = 0 }, "timeWindow", "0 must be > 0"},
		{"timeWindow -1", func(r *degrade.Rule) { r.TimeWindow = -1 }, "timeWindow", "-1 must be > 0"},
		{"error ratio 1.1", func(r *degrade.Rule) { r.Grade, r.Count = degrade.ErrorRatio, 1.1 }, "count", "1.1 is an error ratio"},
		{"error ratio 1.0", func(r *degrade.Rule) { r.Grade, r.Count = degrade.ErrorRatio, 1.0 }, "", ""},
		{"error ratio 0.0", func(r *degrade.Rule) { r.Grade, r.Count = degrade.ErrorRatio, 0 }, "", ""},
		{"error count -3", func(r *degrade.Rule) { r.Grade, r.Count = degrade.ErrorCount, -3 }, "count", "-3 is negative"},
		{"slow ratio threshold 15", func(r *degrade.Rule) { r.SlowRatioThreshold = 15 }, "slowRatioThreshold", "15 is not a ratio in [0, 1]"},
		{"slow ratio threshold 0", func(r *degrade.Rule) { r.SlowRatioThreshold = 0 }, "", ""},
		{"minRequestAmount -1", func(r *degrade.Rule) { r.MinRequestAmount = -1 }, "minRequestAmount", "-1 must be > 0"},
		{"statIntervalMs -1", func(r *degrade.Rule) { r.StatIntervalMs = -1 }, "statIntervalMs", "-1 must be > 0"},
		{"blank resource", func(r *degrade.Rule) { r.Resource = "  " }, "resource", "is required"},
		{"unknown grade", func(r *degrade.Rule) { r.Grade = 7 }, "grade", "7 is not one of 0"},
		{"NaN count", func(r *degrade.Rule) { r.Count = math.NaN() }, "count", "NaN is not a finite number"},
		{"infinite count", func(r *degrade.Rule) { r.Count = math.Inf(1) }, "count", "+Inf is not a finite number"},
		{"NaN slow ratio threshold", func(r *degrade.Rule) { r.SlowRatioThreshold = math.NaN() }, "slowRatioThreshold", "NaN"},
		{"timeWindow beyond int", func(r *degrade.Rule) { r.TimeWindow = int(pastJavaInt) }, "timeWindow", beyondInt},
		{"bad regex", func(r *degrade.Rule) { r.Resource, r.Regex = "a(", true }, "resource", "not a valid regular expression"},
		{"regex", func(r *degrade.Rule) { r.Resource, r.Regex = "a.*", true }, "", ""},
		{"default rule", func(r *degrade.Rule) { r.Resource = "*" }, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := valid()
			tt.rule(&r)
			err := degrade.ValidateRules([]degrade.Rule{valid(), r})
			if tt.field == "" {
				require.NoError(t, err)
				return
			}
			var re *runtime.RuleError
			require.True(t, errors.As(err, &re), "error %v", err)
			assert.Equal(t, 1, re.Index)
			assert.Equal(t, tt.field, re.Field)
			assert.Contains(t, re.Reason, tt.reason)
		})
	}
}

// Java refuses minRequestAmount 0 and statIntervalMs 0; in Go code 0 means
// the default, so the refusal applies to an explicit 0 in JSON.
func TestExplicitZeroInJSONIsRefused(t *testing.T) {
	for _, field := range []string{"minRequestAmount", "statIntervalMs"} {
		var rules []degrade.Rule
		require.NoError(t, json.Unmarshal([]byte(`[{"resource":"abc","count":10,"timeWindow":5,"`+field+`":0}]`), &rules))
		err := degrade.ValidateRules(rules)
		var re *runtime.RuleError
		require.True(t, errors.As(err, &re), "%s: %v", field, err)
		assert.Equal(t, field, re.Field)
		assert.Contains(t, re.Reason, "0 must be > 0")
	}
	r := valid()
	r.MinRequestAmount, r.StatIntervalMs = 0, 0
	require.NoError(t, degrade.ValidateRules([]degrade.Rule{r}), "Go zero values mean the defaults")
}

func TestLoadRulesRefusesTheWholeSet(t *testing.T) {
	setup(t)
	load(t, degrade.Rule{Resource: "kept", Grade: degrade.ErrorCount, Count: 1, TimeWindow: 1})
	bad := valid()
	bad.TimeWindow = 0
	err := degrade.LoadRules([]degrade.Rule{valid(), bad, {Resource: ""}})
	var es runtime.RuleErrors
	require.True(t, errors.As(err, &es))
	assert.Equal(t, 1, es[0].Index)
	assert.Equal(t, 2, es[len(es)-1].Index)
	assert.Contains(t, err.Error(), `rule 1 (resource "abc"): timeWindow 0 must be > 0`)
	require.Len(t, degrade.Rules(), 1)
	assert.Equal(t, "kept", degrade.Rules()[0].Resource)
}

func TestRuleJSON(t *testing.T) {
	t.Run("Java's example with defaults for absent fields", func(t *testing.T) {
		var r degrade.Rule
		require.NoError(t, json.Unmarshal([]byte(`{"resource":"abc0","grade":0,"count":20.0,"timeWindow":10,
			"id":7,"app":"demo","passCount":3,"gmtCreate":1}`), &r))
		assert.Equal(t, degrade.Rule{Resource: "abc0", Grade: degrade.SlowRequestRatio, Count: 20, TimeWindow: 10,
			MinRequestAmount: 5, SlowRatioThreshold: 1, StatIntervalMs: 1000}, r)
	})
	t.Run("readable grade names", func(t *testing.T) {
		for name, want := range map[string]degrade.Grade{`"RT"`: 0, `"ERROR_RATIO"`: 1, `"exceptionCount"`: 2, `"slow-request-ratio"`: 0, `2.0`: 2} {
			var r degrade.Rule
			require.NoError(t, json.Unmarshal([]byte(`{"resource":"a","grade":`+name+`}`), &r), name)
			assert.Equal(t, want, r.Grade, name)
		}
	})
	t.Run("unknown grade code", func(t *testing.T) {
		var r degrade.Rule
		require.ErrorContains(t, json.Unmarshal([]byte(`{"resource":"a","grade":3}`), &r), "3 is not one of")
	})
	t.Run("marshal writes Java's codes and round-trips", func(t *testing.T) {
		r := degrade.Rule{Resource: "a", LimitApp: "default", Grade: degrade.ErrorRatio, Count: 0.5, TimeWindow: 3,
			MinRequestAmount: 5, SlowRatioThreshold: 1, StatIntervalMs: 1000}
		data, err := json.Marshal(r)
		require.NoError(t, err)
		assert.JSONEq(t, `{"resource":"a","limitApp":"default","grade":1,"count":0.5,"timeWindow":3,
			"minRequestAmount":5,"slowRatioThreshold":1,"statIntervalMs":1000,"regex":false}`, string(data))
		var back degrade.Rule
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, r, back)
	})
	t.Run("state names", func(t *testing.T) {
		data, err := json.Marshal([]degrade.State{degrade.Closed, degrade.Open, degrade.HalfOpen})
		require.NoError(t, err)
		assert.Equal(t, `["CLOSED","OPEN","HALF_OPEN"]`, string(data))
	})
}

// FuzzRuleJSON checks that no input makes decoding, validation or loading
// panic, and that a decoded valid rule survives a round trip.
func FuzzRuleJSON(f *testing.F) {
	for _, seed := range []string{
		`{"resource":"abc0","grade":0,"count":20.0,"timeWindow":10,"slowRatioThreshold":0.5,"minRequestAmount":5,"statIntervalMs":1000}`,
		`{"resource":"a.*","regex":true,"grade":"ERROR_COUNT","count":3,"timeWindow":1}`,
		`{"resource":"*","grade":1,"count":1.5,"timeWindow":-1,"minRequestAmount":0}`,
		`{"resource":"a(","regex":true}`,
		`{"grade":1e400}`,
		`[]`, `null`, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r degrade.Rule
		if json.Unmarshal(data, &r) != nil {
			return
		}
		if degrade.ValidateRules([]degrade.Rule{r}) != nil {
			return
		}
		out, err := json.Marshal(r)
		require.NoError(t, err)
		var back degrade.Rule
		require.NoError(t, json.Unmarshal(out, &back))
		assert.Equal(t, r, back)
	})
}
