package paramflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidation(t *testing.T) {
	valid := paramflow.NewRule("res", 0, 5)
	with := func(edit func(r *paramflow.Rule)) paramflow.Rule {
		r := paramflow.NewRule("res", 0, 5)
		edit(&r)
		return r
	}
	tests := []struct {
		name  string
		rule  paramflow.Rule
		field string // "" when valid
	}{
		// Java's ParamFlowRuleUtilTest vectors.
		{"no resource", with(func(r *paramflow.Rule) { r.Resource = "" }), "resource"},
		{"blank resource", with(func(r *paramflow.Rule) { r.Resource = "  " }), "resource"},
		{"count -1", with(func(r *paramflow.Rule) { r.Count = -1 }), "count"},
		{"paramIdx unset", with(func(r *paramflow.Rule) { r.ParamIdx = nil }), "paramIdx"},
		{"paramIdx -1 is valid", with(func(r *paramflow.Rule) { r.ParamIdx = paramflow.Index(-1) }), ""},
		{"count 10 on index 1 is valid", paramflow.NewRule("abc", 1, 10), ""},
		{"count 0 is valid", with(func(r *paramflow.Rule) { r.Count = 0 }), ""},
		{"thread grade is valid", with(func(r *paramflow.Rule) { r.Grade = paramflow.GradeThread }), ""},
		{"durationInSec 0 means 1", with(func(r *paramflow.Rule) { r.DurationInSec = 0 }), ""},
		// Java's other isValidRule checks.
		{"grade -1", with(func(r *paramflow.Rule) { r.Grade = -1 }), "grade"},
		{"burstCount -1", with(func(r *paramflow.Rule) { r.BurstCount = -1 }), "burstCount"},
		{"durationInSec -1", with(func(r *paramflow.Rule) { r.DurationInSec = -1 }), "durationInSec"},
		{"maxQueueingTimeMs -1", with(func(r *paramflow.Rule) { r.MaxQueueingTimeMs = -1 }), "maxQueueingTimeMs"},
		{"cluster mode without config", with(func(r *paramflow.Rule) { r.ClusterMode = true }), "clusterConfig"},
		{"cluster flowId 0", with(func(r *paramflow.Rule) {
			r.ClusterMode, r.ClusterConfig = true, &paramflow.ClusterConfig{}
		}), "clusterConfig.flowId"},
		{"cluster window not a multiple", with(func(r *paramflow.Rule) {
			r.ClusterMode, r.ClusterConfig = true, &paramflow.ClusterConfig{FlowID: 1, SampleCount: 3, WindowIntervalMs: 1000}
		}), "clusterConfig.windowIntervalMs"},
		{"bad regex", with(func(r *paramflow.Rule) { r.Resource, r.Regex = "a(", true }), "resource"},
		{"regex with throttling", with(func(r *paramflow.Rule) {
			r.Regex, r.ControlBehavior, r.MaxQueueingTimeMs = true, paramflow.BehaviorRateLimiter, 10
		}), "controlBehavior"},
		{"regex cluster rule", with(func(r *paramflow.Rule) {
			r.Regex, r.ClusterMode, r.ClusterConfig = true, true, &paramflow.ClusterConfig{FlowID: 1}
		}), "clusterMode"},
		// Stricter than Java.
		{"NaN count", with(func(r *paramflow.Rule) { r.Count = math.NaN() }), "count"},
		{"infinite count", with(func(r *paramflow.Rule) { r.Count = math.Inf(1) }), "count"},
		{"negative behavior", with(func(r *paramflow.Rule) { r.ControlBehavior = -1 }), "controlBehavior"},
	}
	require.NoError(t, paramflow.LoadRules([]paramflow.Rule{valid}))
	defer func() { require.NoError(t, paramflow.LoadRules(nil)) }()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := paramflow.ValidateRules([]paramflow.Rule{valid, tt.rule})
			if tt.field == "" {
				require.NoError(t, err)
				return
			}
			var re *runtime.RuleError
			require.True(t, errors.As(err, &re), "error %v", err)
			assert.Equal(t, 1, re.Index)
			assert.Equal(t, tt.field, re.Field)
			assert.NotEmpty(t, re.Reason)
			require.Error(t, paramflow.LoadRules([]paramflow.Rule{valid, tt.rule}))
			assert.Equal(t, []paramflow.Rule{func() paramflow.Rule { v := valid; v.LimitApp = "default"; return v }()},
				paramflow.Rules(), "the rules in force stay")
		})
	}
}

func TestEveryInvalidRuleIsReported(t *testing.T) {
	err := paramflow.ValidateRules([]paramflow.Rule{
		{Resource: "", Count: -1},
		paramflow.NewRule("ok", 0, 1),
		{Resource: "b", Grade: paramflow.GradeQPS, ParamIdx: paramflow.Index(0), BurstCount: -2},
	})
	var errs runtime.RuleErrors
	require.True(t, errors.As(err, &errs))
	var where []string
	for _, e := range errs {
		where = append(where, e.Error())
	}
	assert.Equal(t, []string{
		"rule 0: resource is blank",
		"rule 0: count -1 is not a number >= 0",
		"rule 0: paramIdx is missing: it is required (the index of the limited argument; negative counts from the end)",
		`rule 2 (resource "b"): burstCount -2 is negative`,
	}, where)
}

func TestJSON(t *testing.T) {
	var rules []paramflow.Rule
	require.NoError(t, json.Unmarshal([]byte(`[
		{"resource":"res","paramIdx":0,"grade":1,"count":5,"durationInSec":1,"burstCount":0,"controlBehavior":0,
		 "paramFlowItemList":[{"object":"vip","classType":"java.lang.String","count":100},{"object":"7","classType":"int","count":0}]},
		{"id": 12, "app": "demo", "gmtCreate": 1, "resource": "r2", "paramIdx": -1, "count": 3, "clusterMode": true,
		 "clusterConfig": {"flowId": 5}},
		{"resource": "r3", "paramIdx": 1, "grade": "thread", "controlBehavior": "throttling", "count": 2,
		 "paramFlowItemList": [{"object": 7, "classType": "long", "count": 1}, {"object": true, "classType": "boolean", "count": 1}]}
	]`), &rules))
	require.NoError(t, paramflow.ValidateRules(rules))

	assert.Equal(t, paramflow.GradeQPS, rules[0].Grade)
	assert.Equal(t, []paramflow.Item{{Object: "vip", ClassType: "java.lang.String", Count: 100}, {Object: "7", ClassType: "int", Count: 0}},
		rules[0].ParamFlowItemList)

	assert.Equal(t, paramflow.GradeQPS, rules[1].Grade, "absent grade is QPS")
	assert.Equal(t, int64(1), rules[1].DurationInSec, "absent durationInSec is 1")
	assert.Equal(t, -1, *rules[1].ParamIdx)
	assert.Equal(t, &paramflow.ClusterConfig{FlowID: 5, SampleCount: 10, WindowIntervalMs: 1000}, rules[1].ClusterConfig)

	assert.Equal(t, paramflow.GradeThread, rules[2].Grade)
	assert.Equal(t, paramflow.BehaviorRateLimiter, rules[2].ControlBehavior)
	assert.Equal(t, "7", rules[2].ParamFlowItemList[0].Object, "a number object is read as its text")
	assert.Equal(t, "true", rules[2].ParamFlowItemList[1].Object)

	out, err := json.Marshal(rules[2])
	require.NoError(t, err)
	assert.Contains(t, string(out), `"grade":0`)
	assert.Contains(t, string(out), `"controlBehavior":2`)
	var back paramflow.Rule
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Equal(t, rules[2], back)
}

func TestJSONParamIdxAndItemsMissingFields(t *testing.T) {
	var rules []paramflow.Rule
	require.NoError(t, json.Unmarshal([]byte(`[
		{"resource": "a", "count": 1},
		{"resource": "b", "paramIdx": 0, "count": 1, "paramFlowItemList": [{"classType": "int", "count": 1}]},
		{"resource": "c", "paramIdx": 0, "count": 1, "paramFlowItemList": [{"object": "6", "classType": "char"}]},
		{"resource": "d", "paramIdx": 0, "count": 1, "paramFlowItemList": [{"object": "Sentinel", "count": 3}, {"object": "11.11", "classType": "", "count": 3}]},
		{"resource": "e", "paramIdx": 0, "count": 1, "durationInSec": 0},
		{"resource": "f", "paramIdx": 0, "count": 1, "clusterMode": true, "clusterConfig": {"flowId": 1, "sampleCount": 0}}
	]`), &rules))
	err := paramflow.ValidateRules(rules)
	var errs runtime.RuleErrors
	require.True(t, errors.As(err, &errs))
	require.Len(t, errs, 3)
	assert.Equal(t, "paramIdx", errs[0].Field)
	assert.Equal(t, "durationInSec", errs[1].Field, "an explicit 0 is refused, as Java does")
	assert.Equal(t, "clusterConfig.windowIntervalMs", errs[2].Field)
	// Items Java's parseHotItems skips are skipped, with a warning.
	lint := paramflow.LintRules(rules)
	require.Len(t, lint, 2)
	assert.Equal(t, "paramFlowItemList[0]", lint[0].Field)
	assert.Contains(t, lint[0].Reason, "object is missing; Java skips the item")
	assert.Equal(t, 2, lint[1].Index)
	assert.Contains(t, lint[1].Reason, "count is missing; Java skips the item")

	// Java's parseHotItems vector: "Sentinel" and "11.11" are strings, so
	// the float 11.11 is not an item.
	load(t, rules[3])
	assert.Equal(t, 3, run(5, "d", "Sentinel"))
	assert.Equal(t, 3, run(5, "d", "11.11"))
	assert.Equal(t, 1, run(5, "d", 11.11))
}

func TestJSONRefusesUnknownEnumNames(t *testing.T) {
	var r paramflow.Rule
	err := json.Unmarshal([]byte(`{"resource": "a", "paramIdx": 0, "grade": "sideways"}`), &r)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `grade "sideways" is not one of 0 (thread, FLOW_GRADE_THREAD), 1 (QPS, FLOW_GRADE_QPS)`)
	require.Error(t, json.Unmarshal([]byte(`{"resource": "a", "paramIdx": 0, "grade": 1.5}`), &r))
}

func TestPropertyLoadsRules(t *testing.T) {
	p := paramflow.Property()
	var got [][]paramflow.Rule
	p.Listen(func(r []paramflow.Rule) { got = append(got, r) })
	rs := []paramflow.Rule{paramflow.NewRule("pf-prop", 0, 1)}
	require.NoError(t, p.Update(rs))
	assert.Len(t, paramflow.Rules(), 1)
	require.Error(t, p.Update([]paramflow.Rule{{Resource: "x"}}))
	assert.Len(t, paramflow.Rules(), 1)
	require.NoError(t, p.Update(nil))
	assert.Empty(t, paramflow.Rules())
	assert.Len(t, got, 2)
}

func TestRulesReturnsACopy(t *testing.T) {
	r := paramflow.NewRule("pf-copy", 0, 1)
	r.ParamFlowItemList = []paramflow.Item{{Object: "a", Count: 1}}
	load(t, r)
	got := paramflow.Rules()
	*got[0].ParamIdx = 5
	got[0].ParamFlowItemList[0].Count = 9
	again := paramflow.Rules()
	assert.Equal(t, 0, *again[0].ParamIdx)
	assert.Equal(t, int64(1), again[0].ParamFlowItemList[0].Count)
}

func FuzzRuleJSON(f *testing.F) {
	for _, s := range []string{
		`{"resource":"res","paramIdx":0,"grade":1,"count":5,"paramFlowItemList":[{"object":"vip","classType":"java.lang.String","count":100},{"object":"7","classType":"int","count":0}]}`,
		`{"resource":"r","paramIdx":-1,"count":3,"clusterMode":true,"clusterConfig":{"flowId":5}}`,
		`{"resource":"r","paramIdx":1,"grade":"thread","controlBehavior":"throttling"}`,
		`{"resource":"r","paramIdx":0,"paramFlowItemList":[{"object":6,"classType":"char","count":1}]}`,
		`{"resource":"(","regex":true,"paramIdx":0}`,
		`{"paramIdx":"x"}`,
		`{"count":1e400}`,
		`null`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var r paramflow.Rule
		if json.Unmarshal([]byte(s), &r) != nil {
			return
		}
		if paramflow.ValidateRules([]paramflow.Rule{r}) != nil {
			return
		}
		out, err := json.Marshal(r)
		require.NoError(t, err)
		var back paramflow.Rule
		require.NoError(t, json.Unmarshal(out, &back))
		require.NoError(t, paramflow.ValidateRules([]paramflow.Rule{back}))
		// A valid rule never makes a call panic.
		require.NoError(t, paramflow.LoadRules([]paramflow.Rule{r}))
		defer func() { require.NoError(t, paramflow.LoadRules(nil)) }()
		for _, args := range [][]any{nil, {1}, {"a", 2.5}, {[]int{1, 2}, true, 'c'}} {
			if e, b := runtime.Entry(context.Background(), r.Resource, runtime.WithArgs(args...)); b == nil {
				e.Exit()
			}
		}
	})
}
