package transport_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/authority"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/sentinelgen/sentinelgen/runtime/system"
	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// What the dashboard sends, kind by kind: JSON.toJSONString of the Java
// rules its RuleEntity.toRule builds (fastjson: every field with a getter,
// nulls left out).
var dashboardRules = []struct {
	kind    string // setRules type; "paramFlow" goes through setParamFlowRules
	ds      datasource.Kind
	data    string
	checkIn func(t *testing.T)
}{
	{"flow", datasource.Flow,
		`[{"clusterConfig":{"acquireRefuseStrategy":0,"clientOfflineTime":2000,"fallbackToLocalWhenFail":true,"resourceTimeout":2000,"resourceTimeoutStrategy":0,"sampleCount":10,"strategy":0,"thresholdType":0,"windowIntervalMs":1000},"clusterMode":false,"controlBehavior":0,"count":5.0,"grade":1,"limitApp":"default","maxQueueingTimeMs":500,"resource":"GET:/api/order","strategy":0,"warmUpPeriodSec":10}]`,
		func(t *testing.T) {
			rs := flow.Rules()
			require.Len(t, rs, 1)
			assert.Equal(t, "GET:/api/order", rs[0].Resource)
			assert.EqualValues(t, 5, rs[0].Count)
		}},
	{"degrade", datasource.Degrade,
		`[{"count":200.0,"grade":0,"limitApp":"default","minRequestAmount":5,"resource":"payOrder","slowRatioThreshold":0.5,"statIntervalMs":1000,"timeWindow":10}]`,
		func(t *testing.T) {
			rs := degrade.Rules()
			require.Len(t, rs, 1)
			assert.Equal(t, "payOrder", rs[0].Resource)
			assert.EqualValues(t, 0.5, rs[0].SlowRatioThreshold)
		}},
	{"system", datasource.System,
		`[{"avgRt":-1,"highestCpuUsage":-1.0,"highestSystemLoad":-1.0,"limitApp":"default","maxThread":-1,"qps":300.0}]`,
		func(t *testing.T) {
			rs := system.Rules()
			require.Len(t, rs, 1)
			assert.EqualValues(t, 300, rs[0].QPS)
		}},
	{"authority", datasource.Authority,
		`[{"limitApp":"appA,appB","resource":"createOrder","strategy":1}]`,
		func(t *testing.T) {
			rs := authority.Rules()
			require.Len(t, rs, 1)
			assert.Equal(t, "appA,appB", rs[0].LimitApp)
		}},
	{"adaptive", datasource.Adaptive, // this runtime's own kind: Java's dashboard never sends it
		`[{"resource":"getOrder","minLimit":3,"maxLimit":200,"initialLimit":20,"rttTolerance":1.25,"sampleIntervalMs":100,"minSamples":20,"probeIntervalMs":60000,"probeSamples":50,"maxQueueingTimeMs":0}]`,
		func(t *testing.T) {
			rs := adaptive.Rules()
			require.Len(t, rs, 1)
			assert.Equal(t, 200, rs[0].MaxLimit)
		}},
	{"paramFlow", datasource.ParamFlow,
		`[{"burstCount":0,"clusterConfig":{"fallbackToLocalWhenFail":true,"sampleCount":1,"thresholdType":0,"windowIntervalMs":1000},"clusterMode":false,"controlBehavior":0,"count":10.0,"durationInSec":1,"grade":1,"limitApp":"default","maxQueueingTimeMs":0,"paramFlowItemList":[{"classType":"java.lang.String","count":20,"object":"vip"}],"paramIdx":0,"resource":"listOrders"}]`,
		func(t *testing.T) {
			rs := paramflow.Rules()
			require.Len(t, rs, 1)
			assert.Equal(t, "listOrders", rs[0].Resource)
			require.Len(t, rs[0].ParamFlowItemList, 1)
		}},
}

func clearRules(t *testing.T) {
	t.Helper()
	require.NoError(t, flow.LoadRules(nil))
	require.NoError(t, degrade.LoadRules(nil))
	require.NoError(t, system.LoadRules(nil))
	require.NoError(t, authority.LoadRules(nil))
	require.NoError(t, paramflow.LoadRules(nil))
	require.NoError(t, adaptive.LoadRules(nil))
}

func setRules(t *testing.T, srv *transport.Server, kind, data string) (int, string) {
	t.Helper()
	if kind == "paramFlow" {
		return post(t, srv, "setParamFlowRules", url.Values{"data": {data}})
	}
	return post(t, srv, "setRules", url.Values{"type": {kind}, "data": {data}})
}

func getRules(t *testing.T, srv *transport.Server, kind string) (int, string) {
	t.Helper()
	if kind == "paramFlow" {
		return get(t, srv, "getParamFlowRules", nil)
	}
	return get(t, srv, "getRules", url.Values{"type": {kind}})
}

// setRules then getRules, for every kind, as the dashboard's rule pages
// do: the rules are in force, read back with the fields sent, and
// written back to the kind's rule file.
func TestSetRulesThenGetRulesEveryKind(t *testing.T) {
	clearRules(t)
	t.Cleanup(func() { clearRules(t) })
	dir := t.TempDir()
	var files []dashboard.RuleFile
	for _, k := range dashboardRules {
		files = append(files, dashboard.RuleFile{Kind: k.ds, Path: filepath.Join(dir, k.kind+".json")})
	}
	srv := start(t, transport.Config{RuleFiles: files})

	for _, k := range dashboardRules {
		t.Run(k.kind, func(t *testing.T) {
			code, body := setRules(t, srv, k.kind, k.data)
			require.Equal(t, http.StatusOK, code, body)
			assert.Equal(t, "success", body, "the dashboard's setRulesAsync wants exactly this")
			k.checkIn(t)

			code, body = getRules(t, srv, k.kind)
			require.Equal(t, http.StatusOK, code, body)
			var sent, got []map[string]any
			require.NoError(t, json.Unmarshal([]byte(k.data), &sent))
			require.NoError(t, json.Unmarshal([]byte(body), &got), body)
			require.Len(t, got, len(sent))
			for field, v := range sent[0] {
				if field == "clusterConfig" || field == "paramFlowItemList" || (k.kind == "system" && field == "limitApp") {
					continue // nested, or not kept (a system rule applies to every inbound call)
				}
				assert.EqualValues(t, v, got[0][field], "field %s read back", field)
			}

			saved, err := os.ReadFile(filepath.Join(dir, k.kind+".json"))
			require.NoError(t, err)
			set, err := k.ds.Decode("saved", saved)
			require.NoError(t, err)
			assert.Equal(t, 1, set.Len(), "the file holds what is in force")
			require.NoError(t, set.Validate())
		})
	}

	// Upper case type names work, as Java compares ignoring case.
	code, body := get(t, srv, "getRules", url.Values{"type": {"FLOW"}})
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "GET:/api/order")
}

// Without a rule file the rules live in memory, as in Java without a
// writable data source; a combined file takes every kind.
func TestSetRulesWritesBackToACombinedFile(t *testing.T) {
	clearRules(t)
	t.Cleanup(func() { clearRules(t) })
	path := filepath.Join(t.TempDir(), "rules.json")
	srv := start(t, transport.Config{RuleFiles: []dashboard.RuleFile{{Kind: datasource.Combined, Path: path}}})
	code, body := setRules(t, srv, "degrade", dashboardRules[1].data)
	require.Equal(t, http.StatusOK, code, body)
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(saved), `"degrade"`)
	assert.Contains(t, string(saved), `"payOrder"`)

	mem := start(t, transport.Config{})
	code, body = setRules(t, mem, "authority", dashboardRules[3].data)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "success", body)
}

func TestSetRulesThatCannotBeWrittenBackArePartialSuccess(t *testing.T) {
	clearRules(t)
	t.Cleanup(func() { clearRules(t) })
	rf := dashboard.RuleFile{Kind: datasource.Flow, Save: func(datasource.Kind) error { return errors.New("disk full") }}
	srv := start(t, transport.Config{RuleFiles: []dashboard.RuleFile{rf}})
	code, body := setRules(t, srv, "flow", dashboardRules[0].data)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "partial success (write data source failed)", body, "Java's answer")
	assert.Len(t, flow.Rules(), 1, "the rules are in force")
}

// Refused rule updates answer why and change nothing: not the rules in
// force, not the file.
func TestRefusedSetRulesChangeNothing(t *testing.T) {
	clearRules(t)
	t.Cleanup(func() { clearRules(t) })
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "kept", Grade: flow.GradeQPS, Count: 1}}))
	kept := flow.Rules()
	path := filepath.Join(t.TempDir(), "flow.json")
	require.NoError(t, os.WriteFile(path, []byte(`[{"resource":"kept","count":1}]`), 0o644))
	srv := start(t, transport.Config{
		RuleFiles:    []dashboard.RuleFile{{Kind: datasource.Flow, Path: path}},
		MaxBodyBytes: 64 << 10,
	})

	huge := `[` + strings.Repeat(`{"resource":"x","count":1},`, 5000) + `{"resource":"x","count":1}]`
	tests := []struct {
		name    string
		call    func() (int, string)
		code    int
		message string
	}{
		{"invalid rule", func() (int, string) {
			return setRules(t, srv, "flow", `[{"resource":"x","count":-1}]`)
		}, 400, "count"},
		{"a misspelt threshold", func() (int, string) {
			return setRules(t, srv, "flow", `[{"resource":"x","cuont":20}]`)
		}, 400, `count is not set, and the rule has "cuont": did you mean "count"?`},
		{"malformed JSON", func() (int, string) { return setRules(t, srv, "flow", `[{"resource":`) }, 400, "flow rules from the dashboard"},
		{"not an array", func() (int, string) { return setRules(t, srv, "flow", `{"resource":"x"}`) }, 400, "flow"},
		{"unknown type", func() (int, string) { return setRules(t, srv, "gateway", `[]`) }, 400, "invalid type"},
		{"no type", func() (int, string) { return post(t, srv, "setRules", url.Values{"data": {`[]`}}) }, 400, "invalid type"},
		{"empty data", func() (int, string) { return post(t, srv, "setRules", url.Values{"type": {"flow"}}) }, 400, "Bad data"},
		{"non-UTF-8 data", func() (int, string) {
			return postRaw(t, srv, "setRules", "application/x-www-form-urlencoded", "type=flow&data=%5B%7B%22resource%22%3A%22%FF%22%7D%5D")
		}, 400, "not valid UTF-8"},
		{"bad escape", func() (int, string) {
			return postRaw(t, srv, "setRules", "application/x-www-form-urlencoded", "type=flow&data=%5B%zz")
		}, 400, "malformed URL encoding"},
		{"huge body", func() (int, string) { return setRules(t, srv, "flow", huge) }, 413, "request body over 65536 bytes"},
		{"not a form", func() (int, string) {
			return postRaw(t, srv, "setRules?type=flow", "application/json", `[{"resource":"x","count":1}]`)
		}, 415, "Only form-encoded post request is supported"},
		{"param flow in setRules", func() (int, string) { return setRules(t, srv, "paramFlow", `[{"resource":"x"}]`) }, 400, "paramIdx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := tt.call()
			assert.Equal(t, tt.code, code, body)
			assert.Contains(t, body, tt.message)
			assert.Equal(t, kept, flow.Rules(), "the rules in force stay")
			saved, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, `[{"resource":"kept","count":1}]`, string(saved), "the file stays")
		})
	}
	assert.Empty(t, paramflow.Rules())
}

// Java decodes data a second time; a client that encodes it twice is
// understood, and a '+' in a resource name sent once-encoded survives.
func TestSetRulesDataEncoding(t *testing.T) {
	clearRules(t)
	t.Cleanup(func() { clearRules(t) })
	srv := start(t, transport.Config{})
	twice := url.QueryEscape(`[{"resource":"twice","count":2}]`)
	code, body := post(t, srv, "setRules", url.Values{"type": {"flow"}, "data": {twice}})
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, "twice", flow.Rules()[0].Resource)

	code, body = post(t, srv, "setRules", url.Values{"type": {"flow"}, "data": {`[{"resource":"GET:/a+b","count":2}]`}})
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, "GET:/a+b", flow.Rules()[0].Resource)

	// Older dashboards send everything in the query string of a GET.
	code, body = get(t, srv, "setRules", url.Values{"type": {"flow"}, "data": {`[{"resource":"by-get","count":2}]`}})
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, "by-get", flow.Rules()[0].Resource)
}

func clearRulesTB(tb testing.TB) {
	_ = flow.LoadRules(nil)
	_ = degrade.LoadRules(nil)
	_ = system.LoadRules(nil)
	_ = authority.LoadRules(nil)
	_ = paramflow.LoadRules(nil)
	_ = adaptive.LoadRules(nil)
}

// Java's AuthorityRuleManager keeps one rule per resource, the first, and
// its getRules lists only that one.
func TestGetRulesListsOnlyTheAuthorityRuleInForce(t *testing.T) {
	clearRules(t)
	t.Cleanup(func() { clearRules(t) })
	require.NoError(t, authority.LoadRules([]authority.Rule{
		{Resource: "createOrder", LimitApp: "appA", Strategy: authority.Black},
		{Resource: "createOrder", LimitApp: "appB", Strategy: authority.Black}, // ignored, as in Java
	}))
	srv := start(t, transport.Config{})
	code, body := getRules(t, srv, "authority")
	require.Equal(t, http.StatusOK, code, body)
	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &got), body)
	require.Len(t, got, 1, body)
	assert.Equal(t, "appA", got[0]["limitApp"])
}

// The dashboard's rule entities have no dryRun: after any edit it pushes
// every rule of the kind without it. A dry run stays one, in memory and in
// the file written back; a rule added beside it is enforced, as written.
func TestSetRulesFromTheDashboardNeverSwitchesADryRunOff(t *testing.T) {
	clearRules(t)
	t.Cleanup(func() { clearRules(t) })
	path := filepath.Join(t.TempDir(), "flow.json")
	require.NoError(t, flow.LoadRules([]flow.Rule{
		{Resource: "getOrder", Grade: flow.GradeQPS, Count: 0, DryRun: true},
		{Resource: "listOrders", Grade: flow.GradeQPS, Count: 10},
	}))
	srv := start(t, transport.Config{RuleFiles: []dashboard.RuleFile{{Kind: datasource.Flow, Path: path}}})

	// What the dashboard read (getRules), through its entities: every Java
	// field, dryRun dropped.
	_, body := getRules(t, srv, "flow")
	var read []map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &read))
	require.Len(t, read, 2)
	assert.Equal(t, true, read[0]["dryRun"], "getRules says it; the dashboard drops it")
	for _, r := range read {
		delete(r, "dryRun")
	}
	push := func(rules []map[string]any) {
		t.Helper()
		data, err := json.Marshal(rules)
		require.NoError(t, err)
		code, body := setRules(t, srv, "flow", string(data))
		require.Equal(t, http.StatusOK, code, body)
		require.Equal(t, "success", body)
	}
	dryRuns := func() map[string]bool {
		out := map[string]bool{}
		for _, r := range flow.Rules() {
			out[r.Resource+"/"+strconv.FormatFloat(r.Count, 'f', -1, 64)] = r.DryRun
		}
		return out
	}

	// The operator adds a rule: the dashboard sends all three.
	added := map[string]any{"resource": "getOrder", "limitApp": "default", "grade": 1, "count": 5, "strategy": 0, "controlBehavior": 0}
	push(append(read, added))
	assert.Equal(t, map[string]bool{"getOrder/0": true, "listOrders/10": false, "getOrder/5": false}, dryRuns(),
		"the untouched rule stays a dry run; the added one is enforced")
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	var file []flow.Rule
	require.NoError(t, json.Unmarshal(saved, &file))
	require.Len(t, file, 3)
	assert.True(t, file[0].DryRun, "the file written back keeps the dry run: a restart does not switch it on")
	assert.False(t, file[2].DryRun)

	// The operator edits the dry-run rule's count: it stays a dry run.
	read[0]["count"] = 2
	push(append(read, added))
	assert.Equal(t, map[string]bool{"getOrder/2": true, "listOrders/10": false, "getOrder/5": false}, dryRuns())

	// A client that knows dryRun says so, and is obeyed.
	read[0]["dryRun"] = false
	push(read)
	assert.Equal(t, map[string]bool{"getOrder/2": false, "listOrders/10": false}, dryRuns())
}

// The dashboard's FlowRuleEntity has no regex: after any edit it pushes
// every flow rule with "regex": false, as Java's FlowRule writes it. A
// regex rule stays one, in memory and in the file written back.
func TestSetRulesFromTheDashboardKeepsARegexRuleARegex(t *testing.T) {
	clearRules(t)
	t.Cleanup(func() { clearRules(t) })
	path := filepath.Join(t.TempDir(), "flow.json")
	require.NoError(t, flow.LoadRules([]flow.Rule{
		{Resource: "GET:/api/orders/.*", Grade: flow.GradeQPS, Count: 10, Regex: true},
		{Resource: "listOrders", Grade: flow.GradeQPS, Count: 10},
	}))
	srv := start(t, transport.Config{RuleFiles: []dashboard.RuleFile{{Kind: datasource.Flow, Path: path}}})

	_, body := getRules(t, srv, "flow")
	var read []map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &read))
	require.Len(t, read, 2)
	for _, r := range read {
		r["regex"] = false // FlowRuleEntity.toRule leaves Java's default
	}
	read[1]["count"] = 20 // the operator edits the other rule
	data, err := json.Marshal(read)
	require.NoError(t, err)
	code, body := setRules(t, srv, "flow", string(data))
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, "success", body)

	rules := flow.Rules()
	require.Len(t, rules, 2)
	assert.True(t, rules[0].Regex, "the regex rule is still a regex")
	assert.Equal(t, 20.0, rules[1].Count, "the edit is in force")
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	var file []flow.Rule
	require.NoError(t, json.Unmarshal(saved, &file))
	require.Len(t, file, 2)
	assert.True(t, file[0].Regex, "the file written back keeps it: a restart does not make it exact")
}
