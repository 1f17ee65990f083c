package adaptive_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRulesInForceHaveTheirDefaultsFilledIn(t *testing.T) {
	load(t, adaptive.Rule{Resource: "defaults"}, adaptive.Rule{Resource: "small", MaxLimit: 2})
	assert.Equal(t, []adaptive.Rule{{
		Resource: "defaults", MinLimit: 3, MaxLimit: 1000, InitialLimit: 20, RTTTolerance: 1.1,
		SampleIntervalMs: 100, MinSamples: 20, ProbeIntervalMs: 60000, ProbeSamples: 50,
	}, {
		Resource: "small", MinLimit: 2, MaxLimit: 2, InitialLimit: 2, RTTTolerance: 1.1,
		SampleIntervalMs: 100, MinSamples: 20, ProbeIntervalMs: 60000, ProbeSamples: 50,
	}}, adaptive.Rules())
}

func TestTheJSONFieldsAreJavaStyle(t *testing.T) {
	var r adaptive.Rule
	require.NoError(t, json.Unmarshal([]byte(`{"resource":"a","minLimit":2,"maxLimit":50,"initialLimit":10,
		"rttTolerance":1.5,"sampleIntervalMs":200,"minSamples":5,"probeIntervalMs":30000,"probeSamples":20,
		"maxQueueingTimeMs":5,"dryRun":true}`), &r))
	assert.Equal(t, adaptive.Rule{Resource: "a", MinLimit: 2, MaxLimit: 50, InitialLimit: 10, RTTTolerance: 1.5,
		SampleIntervalMs: 200, MinSamples: 5, ProbeIntervalMs: 30000, ProbeSamples: 20, MaxQueueingTimeMs: 5, DryRun: true}, r)
}

func TestJSONLeavingFieldsOutTakesTheDefaults(t *testing.T) {
	var r adaptive.Rule
	require.NoError(t, json.Unmarshal([]byte(`{"resource":"a","maxLimit":0,"rttTolerance":1.5}`), &r))
	assert.Equal(t, adaptive.Rule{Resource: "a", MinLimit: 3, MaxLimit: 1000, InitialLimit: 20, RTTTolerance: 1.5,
		SampleIntervalMs: 100, MinSamples: 20, ProbeIntervalMs: 60000, ProbeSamples: 50}, r)
}

func TestInvalidRulesAreRefusedWholeWithEachProblem(t *testing.T) {
	load(t, adaptive.Rule{Resource: "kept"})
	err := adaptive.LoadRules([]adaptive.Rule{
		{Resource: " "},
		{Resource: "a", MinLimit: -1},
		{Resource: "b", MinLimit: 10, MaxLimit: 5},
		{Resource: "c", MinLimit: 5, MaxLimit: 10, InitialLimit: 20},
		{Resource: "d", RTTTolerance: 0.5},
		{Resource: "e", RTTTolerance: math.NaN()},
		{Resource: "f", SampleIntervalMs: 5},
		{Resource: "g", ProbeIntervalMs: 500},
		{Resource: "h", SampleIntervalMs: 1000, ProbeIntervalMs: 5000},
		{Resource: "i", MaxQueueingTimeMs: -1},
		{Resource: "j", MaxQueueingTimeMs: 60000},
		{Resource: "a"},
		{Resource: "k", MinSamples: -3, ProbeSamples: 1e6},
		{Resource: "l", MaxLimit: 1 << 30},
	})
	var errs runtime.RuleErrors
	require.True(t, errors.As(err, &errs), "%v", err)
	type at struct {
		index int
		field string
	}
	var got []at
	for _, e := range errs {
		got = append(got, at{e.Index, e.Field})
	}
	assert.Equal(t, []at{
		{0, "resource"}, {1, "minLimit"}, {2, "maxLimit"}, {3, "initialLimit"}, {4, "rttTolerance"},
		{5, "rttTolerance"}, {6, "sampleIntervalMs"}, {7, "probeIntervalMs"}, {8, "probeIntervalMs"},
		{9, "maxQueueingTimeMs"}, {10, "maxQueueingTimeMs"}, {11, "resource"}, {12, "minSamples"},
		{12, "probeSamples"}, {13, "maxLimit"},
	}, got)
	assert.Contains(t, errs[11].Error(), `"a" already has an adaptive rule (rule 1)`)
	assert.Contains(t, errs[2].Error(), "5 is below minLimit 10")
	assert.Equal(t, "kept", adaptive.Rules()[0].Resource, "the rules in force stay")
	assert.NoError(t, adaptive.ValidateRules(adaptive.Rules()))
}

func TestPropertyLoadsRules(t *testing.T) {
	t.Cleanup(func() { _ = adaptive.LoadRules(nil) })
	require.NoError(t, adaptive.Property().Update([]adaptive.Rule{{Resource: "by-property"}}))
	assert.Equal(t, "by-property", adaptive.Rules()[0].Resource)
}

func TestStringDescribesTheRule(t *testing.T) {
	r := adaptive.Rule{Resource: "a", MaxQueueingTimeMs: 5, DryRun: true}
	assert.Equal(t, `adaptive rule {resource "a", limit 3..1000 from 20, rtt tolerance 1.1, waits up to 5ms, dry run}`, r.String())
}
