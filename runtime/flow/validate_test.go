package flow_test

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pastJavaInt is Java's Integer.MAX_VALUE + 1, a variable so that the
// tests compile where int has 32 bits.
var pastJavaInt int64 = math.MaxInt32 + 1

func TestValidateRefusesWithIndexFieldAndReason(t *testing.T) {
	cluster := func(cc flow.ClusterConfig) *flow.ClusterConfig { return &cc }
	tests := []struct {
		name   string
		rule   flow.Rule
		field  string
		reason string
	}{
		{"blank resource", flow.Rule{Resource: " ", Grade: flow.GradeQPS}, "resource", "is blank"},
		{"negative count", flow.Rule{Resource: "a", Grade: flow.GradeQPS, Count: -1}, "count", "-1 is negative"},
		{"NaN count", flow.Rule{Resource: "a", Grade: flow.GradeQPS, Count: math.NaN()}, "count", "NaN is not a finite number"},
		{"infinite count", flow.Rule{Resource: "a", Grade: flow.GradeQPS, Count: math.Inf(1)}, "count", "+Inf is not a finite number"},
		{"unknown grade", flow.Rule{Resource: "a", Grade: 2}, "grade", "2 is not one of 0 (Thread), 1 (QPS)"},
		{"negative strategy", flow.Rule{Resource: "a", Grade: flow.GradeQPS, Strategy: -1}, "strategy", "-1 is negative"},
		{"negative behavior", flow.Rule{Resource: "a", Grade: flow.GradeQPS, ControlBehavior: -1}, "controlBehavior", "-1 is negative"},
		{"unknown behavior on a regex rule", flow.Rule{Resource: "a.*", Regex: true, Grade: flow.GradeQPS, ControlBehavior: 7}, "controlBehavior", "7 (ControlBehavior(7)) on a regex rule"},
		{"relate without refResource", flow.Rule{Resource: "a", Grade: flow.GradeQPS, Strategy: flow.Relate}, "refResource", "is blank; strategy 1 (Relate)"},
		{"warm up with a negative period", flow.Rule{Resource: "a", Grade: flow.GradeQPS, ControlBehavior: flow.WarmUp, WarmUpPeriodSec: -1}, "warmUpPeriodSec", "-1 must be > 0"},
		{"throttling with a negative queue", flow.Rule{Resource: "a", Grade: flow.GradeQPS, ControlBehavior: flow.Throttling, MaxQueueingTimeMs: -5}, "maxQueueingTimeMs", "-5 must be > 0"},
		{"bad regex", flow.Rule{Resource: "a(", Regex: true, Grade: flow.GradeQPS}, "resource", "is not a valid regular expression"},
		{"regex with warm up", flow.Rule{Resource: "a.*", Regex: true, Grade: flow.GradeQPS, ControlBehavior: flow.WarmUp}, "controlBehavior", "on a regex rule"},
		{"regex in cluster mode", flow.Rule{Resource: "a.*", Regex: true, Grade: flow.GradeQPS, ClusterMode: true, ClusterConfig: cluster(flow.ClusterConfig{FlowID: 1})}, "clusterMode", "regex rule"},
		{"cluster without config", flow.Rule{Resource: "a", Grade: flow.GradeQPS, ClusterMode: true}, "clusterConfig", "is missing"},
		{"cluster without flowId", flow.Rule{Resource: "a", Grade: flow.GradeQPS, ClusterMode: true, ClusterConfig: cluster(flow.ClusterConfig{})}, "clusterConfig.flowId", "0 must be > 0"},
		{"cluster window not a multiple", flow.Rule{Resource: "a", Grade: flow.GradeQPS, ClusterMode: true, ClusterConfig: cluster(flow.ClusterConfig{FlowID: 1, SampleCount: 3})}, "clusterConfig.windowIntervalMs", "1000 is not a multiple of sampleCount 3"},
		{"cluster borrow strategy", flow.Rule{Resource: "a", Grade: flow.GradeQPS, ClusterMode: true, ClusterConfig: cluster(flow.ClusterConfig{FlowID: 1, Strategy: 1})}, "clusterConfig.strategy", "1 is not 0"},
		{"cluster thread rule timeout", flow.Rule{Resource: "a", ClusterMode: true, ClusterConfig: cluster(flow.ClusterConfig{FlowID: 1, ResourceTimeout: -1})}, "clusterConfig.resourceTimeout", "-1 must be > 0"},
		{"cluster threshold type", flow.Rule{Resource: "a", Grade: flow.GradeQPS, ClusterMode: true, ClusterConfig: cluster(flow.ClusterConfig{FlowID: 1, ThresholdType: 4})}, "clusterConfig.thresholdType", "4 is not one of"},
	}
	// An int past Java's exists where int has 64 bits; on 32-bit platforms
	// (GOARCH=386) the period cannot be written, nor decoded from JSON.
	if strconv.IntSize == 64 {
		past := int(pastJavaInt)
		tests = append(tests, struct {
			name   string
			rule   flow.Rule
			field  string
			reason string
		}{"a period past Java's int", flow.Rule{Resource: "a", Grade: flow.GradeQPS, ControlBehavior: flow.WarmUp, WarmUpPeriodSec: past}, "warmUpPeriodSec", "does not fit Java's int"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules := []flow.Rule{qps("fine", 1), tt.rule}
			err := flow.ValidateRules(rules)
			require.Error(t, err)
			var errs runtime.RuleErrors
			require.True(t, errors.As(err, &errs), "%T", err)
			require.Len(t, errs, 1, err.Error())
			assert.Equal(t, 1, errs[0].Index)
			assert.Equal(t, tt.rule.Resource, errs[0].Resource)
			assert.Equal(t, tt.field, errs[0].Field)
			assert.Contains(t, errs[0].Reason, tt.reason)
		})
	}
}

func TestValidateRefusesExplicitZerosFromJSON(t *testing.T) {
	tests := []struct{ json, field string }{
		{`{"resource":"a","controlBehavior":1,"warmUpPeriodSec":0}`, "warmUpPeriodSec"},
		{`{"resource":"a","controlBehavior":2,"maxQueueingTimeMs":0}`, "maxQueueingTimeMs"},
		{`{"resource":"a","controlBehavior":3,"maxQueueingTimeMs":0}`, "maxQueueingTimeMs"},
		{`{"resource":"a","clusterMode":true,"clusterConfig":{"flowId":1,"sampleCount":0}}`, "clusterConfig.sampleCount"},
		{`{"resource":"a","grade":0,"clusterMode":true,"clusterConfig":{"flowId":1,"clientOfflineTime":0}}`, "clusterConfig.clientOfflineTime"},
	}
	for _, tt := range tests {
		var r flow.Rule
		require.NoError(t, json.Unmarshal([]byte(tt.json), &r))
		err := flow.ValidateRules([]flow.Rule{r})
		var errs runtime.RuleErrors
		require.True(t, errors.As(err, &errs), tt.json)
		assert.Equal(t, tt.field, errs[0].Field, tt.json)
	}
}

func TestValidateAcceptsWhatJavaAccepts(t *testing.T) {
	rules := []flow.Rule{
		qps("zero", 0),
		{Resource: "warm", Grade: flow.GradeQPS, Count: 10, ControlBehavior: flow.WarmUp}, // Go's zero period: Java's 10
		{Resource: "queue", Grade: flow.GradeQPS, Count: 10, ControlBehavior: flow.Throttling},
		{Resource: "threads", Grade: flow.GradeThread, Count: 1, ControlBehavior: flow.WarmUp, WarmUpPeriodSec: -1}, // thread rules ignore shaping, as Java
		{Resource: "reject", Grade: flow.GradeQPS, Count: 1, WarmUpPeriodSec: -1},                                   // Reject ignores the period
		{Resource: "x.*", Regex: true, Grade: flow.GradeQPS, Count: 1},
		{Resource: "c", Grade: flow.GradeQPS, Count: 1, ClusterMode: true, ClusterConfig: &flow.ClusterConfig{FlowID: 9}},
	}
	require.NoError(t, flow.ValidateRules(rules))
}

func TestLoadRulesIsAllOrNothing(t *testing.T) {
	load(t, qps("keep", 5))
	err := flow.LoadRules([]flow.Rule{qps("new", 1), {Resource: "", Grade: flow.GradeQPS}, qps("bad", -1)})
	var errs runtime.RuleErrors
	require.True(t, errors.As(err, &errs))
	require.Len(t, errs, 2)
	assert.Equal(t, 1, errs[0].Index)
	assert.Equal(t, 2, errs[1].Index)
	assert.Equal(t, `rule 2 (resource "bad"): count -1 is negative; it must be >= 0 (0 blocks every call)`, errs[1].Error())
	got := flow.Rules()
	require.Len(t, got, 1)
	assert.Equal(t, "keep", got[0].Resource)
}

func TestRulesReportsWhatIsInForce(t *testing.T) {
	load(t, flow.Rule{Resource: "r", Grade: flow.GradeQPS, Count: 1, ControlBehavior: flow.WarmUp},
		flow.Rule{Resource: "r", Grade: flow.GradeQPS, Count: 1, ControlBehavior: flow.WarmUp}, // duplicate
		flow.Rule{Resource: "r", Grade: flow.GradeQPS, Count: 2, LimitApp: "appA"})
	got := flow.Rules()
	require.Len(t, got, 2)
	assert.Equal(t, "default", got[0].LimitApp)
	assert.Equal(t, 10, got[0].WarmUpPeriodSec)
	assert.Equal(t, 500, got[0].MaxQueueingTimeMs)
	assert.Equal(t, "appA", got[1].LimitApp)

	require.NoError(t, flow.LoadRules(nil))
	assert.Empty(t, flow.Rules())
	assert.True(t, call(from(""), "r"))
}

func TestPropertyLoadsThroughLoadRules(t *testing.T) {
	load(t)
	p := flow.Property()
	var seen []flow.Rule
	p.Listen(func(r []flow.Rule) { seen = r })
	require.NoError(t, p.Update([]flow.Rule{qps("prop", 0)}))
	assert.Len(t, seen, 1)
	assert.False(t, call(from(""), "prop"))
	require.Error(t, p.Update([]flow.Rule{qps("prop", -1)}))
	assert.Len(t, flow.Rules(), 1)
	require.NoError(t, p.Update(nil))
}

func TestColdFactorIsConfigurable(t *testing.T) {
	assert.Equal(t, flow.DefaultColdFactor, flow.ColdFactor())
	assert.Error(t, flow.SetColdFactor(1))
	assert.Error(t, flow.SetColdFactor(0))
	assert.Equal(t, flow.DefaultColdFactor, flow.ColdFactor())
}
