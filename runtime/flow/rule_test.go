package flow_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRuleJSON(t *testing.T) {
	tests := []struct {
		name string
		json string
		want flow.Rule
	}{
		{
			name: "absent fields take Java's defaults",
			json: `{"resource":"abc","count":20}`,
			want: flow.Rule{Resource: "abc", LimitApp: "default", Grade: flow.GradeQPS, Count: 20, WarmUpPeriodSec: 10, MaxQueueingTimeMs: 500},
		},
		{
			name: "Java's example with numeric codes",
			json: `{"resource":"abc","limitApp":"default","grade":1,"count":20.0,"strategy":0,"controlBehavior":0}`,
			want: flow.Rule{Resource: "abc", LimitApp: "default", Grade: flow.GradeQPS, Count: 20, WarmUpPeriodSec: 10, MaxQueueingTimeMs: 500},
		},
		{
			name: "readable names and dashboard fields",
			json: `{"id":7,"app":"shop","ip":"10.0.0.1","port":8719,"gmtCreate":1700000000000,"resource":"/api/order",
				"limitApp":"appA","grade":"Thread","count":5,"strategy":"Relate","refResource":"db",
				"controlBehavior":"RateLimiter","maxQueueingTimeMs":200}`,
			want: flow.Rule{Resource: "/api/order", LimitApp: "appA", Grade: flow.GradeThread, Count: 5, Strategy: flow.Relate,
				RefResource: "db", ControlBehavior: flow.Throttling, WarmUpPeriodSec: 10, MaxQueueingTimeMs: 200},
		},
		{
			name: "cluster config takes Java's defaults",
			json: `{"resource":"abc","count":1,"clusterMode":true,"clusterConfig":{"flowId":3}}`,
			want: flow.Rule{Resource: "abc", LimitApp: "default", Grade: flow.GradeQPS, Count: 1, WarmUpPeriodSec: 10, MaxQueueingTimeMs: 500,
				ClusterMode: true, ClusterConfig: &flow.ClusterConfig{FlowID: 3, FallbackToLocalWhenFail: true, SampleCount: 10,
					WindowIntervalMs: 1000, ResourceTimeout: 2000, ClientOfflineTime: 2000}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got flow.Rule
			require.NoError(t, json.Unmarshal([]byte(tt.json), &got))
			require.NoError(t, flow.ValidateRules([]flow.Rule{got}))
			// Compare through JSON: the decoded rule carries private
			// bookkeeping the literal does not.
			assertSameJSON(t, tt.want, got)
		})
	}
}

func assertSameJSON(t *testing.T, want, got any) {
	t.Helper()
	w, err := json.Marshal(want)
	require.NoError(t, err)
	g, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(w), string(g))
}

func TestRuleJSONWritesJavaCodes(t *testing.T) {
	r := flow.Rule{Resource: "a", Grade: flow.GradeQPS, Strategy: flow.Chain, ControlBehavior: flow.WarmUpThrottling}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"grade":1`)
	assert.Contains(t, string(b), `"strategy":2`)
	assert.Contains(t, string(b), `"controlBehavior":3`)
	var back flow.Rule
	require.NoError(t, json.Unmarshal(b, &back))
	assertSameJSON(t, r, back)
}

func TestRuleJSONRejectsUnknownCodes(t *testing.T) {
	for _, doc := range []string{
		`{"resource":"a","grade":2}`,
		`{"resource":"a","strategy":"Sideways"}`,
		`{"resource":"a","strategy":1.5}`,
		`{"resource":"a","controlBehavior":"Sometimes"}`,
		`{"resource":"a","grade":1.5}`,
	} {
		var r flow.Rule
		assert.Error(t, json.Unmarshal([]byte(doc), &r), doc)
	}
}

func TestEnumStrings(t *testing.T) {
	assert.Equal(t, "QPS", flow.GradeQPS.String())
	assert.Equal(t, "Thread", flow.GradeThread.String())
	assert.Equal(t, "Grade(9)", flow.Grade(9).String())
	assert.Equal(t, "Chain", flow.Chain.String())
	assert.Equal(t, "Strategy(9)", flow.Strategy(9).String())
	assert.Equal(t, "WarmUpThrottling", flow.WarmUpThrottling.String())
	assert.Equal(t, "ControlBehavior(9)", flow.ControlBehavior(9).String())
}

// FuzzRuleJSON: decoding, validating, loading and re-encoding any document
// never panics, a valid rule survives a round trip, and calls under it
// neither panic nor hang.
func FuzzRuleJSON(f *testing.F) {
	for _, seed := range []string{
		`{"resource":"abc","count":20}`,
		`{"resource":"abc","limitApp":"default","grade":1,"count":20.0,"strategy":0,"controlBehavior":0}`,
		`{"resource":"a.*","regex":true,"grade":"QPS","count":1}`,
		`{"resource":"a","grade":0,"count":3,"strategy":2,"refResource":"entrance"}`,
		`{"resource":"a","controlBehavior":3,"warmUpPeriodSec":0,"maxQueueingTimeMs":-1}`,
		`{"resource":"a","clusterMode":true,"clusterConfig":{"flowId":1,"sampleCount":0}}`,
		`{"resource":"a","count":1e308,"controlBehavior":1}`,
		`{"resource":"(","regex":true}`,
		`[1,2]`, `null`, `{"count":"x"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var r flow.Rule
		if json.Unmarshal([]byte(doc), &r) != nil {
			return
		}
		if flow.ValidateRules([]flow.Rule{r}) != nil {
			return
		}
		b, err := json.Marshal(r)
		require.NoError(t, err)
		var back flow.Rule
		require.NoError(t, json.Unmarshal(b, &back))
		require.NoError(t, flow.ValidateRules([]flow.Rule{back}), string(b))

		clk := newFrozenClock() // throttling waits return at once
		defer runtime.SetClock(clk)()
		require.NoError(t, flow.LoadRules([]flow.Rule{r}))
		defer flow.LoadRules(nil)
		for _, ctx := range []context.Context{context.Background(), from(r.LimitApp), runtime.EnterContext(context.Background(), r.RefResource, "o")} {
			for range 3 {
				call(ctx, r.Resource)
				clk.lastSleep()
			}
		}
	})
}

func TestRuleString(t *testing.T) {
	r := flow.Rule{Resource: "getOrder", Grade: flow.GradeQPS, Count: 20, ControlBehavior: flow.WarmUp, WarmUpPeriodSec: 10}
	assert.Equal(t, `flow rule {resource "getOrder", limitApp "default", grade QPS, count 20, strategy Direct, controlBehavior WarmUp over 10s}`, r.String())
	r = flow.Rule{Resource: "w", LimitApp: "appA", Count: 2, Strategy: flow.Relate, RefResource: "r", ClusterMode: true}
	assert.Equal(t, `flow rule {resource "w", limitApp "appA", grade Thread, count 2, strategy Relate of "r", controlBehavior Reject, cluster mode}`, r.String())
}
