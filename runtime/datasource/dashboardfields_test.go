package datasource_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// The dashboard keeps of each kind only what its entity carries: the
// fields that come back from a push are the list's, and the rest are kept
// from the rules in force.
func TestDashboardCarriesFieldsOfEachKindsRules(t *testing.T) {
	want := map[string][]string{ // what a push drops, and must be kept
		"flow":      {"regex", "dryRun"},
		"degrade":   {"regex", "dryRun"},
		"system":    {"dryRun"},
		"authority": {"dryRun"},
		"paramFlow": {"dryRun"},
		"adaptive":  {"dryRun"},
	}
	for _, k := range datasource.Kinds() {
		t.Run(k.Name(), func(t *testing.T) {
			assert.ElementsMatch(t, want[k.Name()], datasource.UncarriedNames(k))
			rule := reflect.TypeOf(k.Rules()).Elem()
			var names []string
			for i := range rule.NumField() {
				name, _, _ := strings.Cut(rule.Field(i).Tag.Get("json"), ",")
				names = append(names, name)
			}
			for _, name := range datasource.DashboardCarries[k.Name()] {
				assert.Contains(t, names, name, "a carried field is a field of the kind's rules")
			}
		})
	}
}

// dashboardPush is what Java's dashboard sends back for the rules it read
// (doc, the rules in force): each rule through its entity, so with the
// carried fields only, Java's default for the fields of Java's rule
// class it drops (regex: false, for flow and degrade), and edit applied
// to the first rule.
func dashboardPush(t *testing.T, kind string, doc []byte, edit func(map[string]any)) []byte {
	t.Helper()
	var rules []map[string]any
	require.NoError(t, json.Unmarshal(doc, &rules))
	carried := datasource.DashboardCarries[kind]
	for _, r := range rules {
		for name := range r {
			if !slices.Contains(carried, name) {
				delete(r, name)
			}
		}
		if kind == "flow" || kind == "degrade" {
			r["regex"] = false // Java's FlowRule and DegradeRule have it; their entities do not
		}
	}
	edit(rules[0])
	out, err := json.Marshal(rules)
	require.NoError(t, err)
	return out
}

// An edit in the console pushes every rule of the kind back through the
// dashboard's entities: the regex and dry-run rules stay regex and dry
// runs, the edited one and those left alone alike.
func TestKeepUncarriedRoundTripsEveryKindThroughTheDashboard(t *testing.T) {
	tests := []struct {
		kind    datasource.Kind
		doc     string
		edit    func(map[string]any)
		changed string // the field the edit changed, checked in force
	}{
		{datasource.Flow,
			`[{"resource":"GET:/api/.*","regex":true,"count":10,"dryRun":true},{"resource":"/b/.*","regex":true,"count":5}]`,
			func(r map[string]any) { r["count"] = 20.0 }, "count"},
		{datasource.Degrade,
			`[{"resource":"/a/.*","regex":true,"grade":2,"count":1,"timeWindow":10,"dryRun":true},{"resource":"/b/.*","regex":true,"grade":2,"count":1,"timeWindow":10}]`,
			func(r map[string]any) { r["timeWindow"] = 20.0 }, "timeWindow"},
		{datasource.System,
			`[{"qps":100,"dryRun":true},{"maxThread":100}]`,
			func(r map[string]any) { r["qps"] = 200.0 }, "qps"},
		{datasource.Authority,
			`[{"resource":"/a/.*","regex":true,"limitApp":"appA","strategy":1,"dryRun":true},{"resource":"/b/.*","regex":true,"limitApp":"appA","strategy":1}]`,
			func(r map[string]any) { r["strategy"] = 0.0 }, "strategy"},
		{datasource.ParamFlow,
			`[{"resource":"/a/.*","regex":true,"paramIdx":0,"count":5,"dryRun":true},{"resource":"/b/.*","regex":true,"paramIdx":0,"count":5}]`,
			func(r map[string]any) { r["count"] = 7.0 }, "count"},
		{datasource.Adaptive,
			`[{"resource":"a","maxLimit":50,"dryRun":true},{"resource":"b","maxLimit":50}]`,
			func(r map[string]any) { r["maxLimit"] = 60.0 }, "maxLimit"},
	}
	for _, tt := range tests {
		t.Run(tt.kind.Name(), func(t *testing.T) {
			_, err := datasource.Load(tt.kind.Name()+".json", []byte(tt.doc), tt.kind)
			require.NoError(t, err)
			t.Cleanup(func() { _, _ = datasource.Load("clear", []byte(`[]`), tt.kind) })
			before, err := tt.kind.Encode()
			require.NoError(t, err)

			pushed := dashboardPush(t, tt.kind.Name(), before, tt.edit)
			set, err := tt.kind.Decode("from the dashboard", pushed)
			require.NoError(t, err)
			assert.Positive(t, datasource.KeepUncarried(set))
			require.NoError(t, set.Load())

			after, err := tt.kind.Encode()
			require.NoError(t, err)
			var was, is []map[string]any
			require.NoError(t, json.Unmarshal(before, &was))
			require.NoError(t, json.Unmarshal(after, &is))
			require.Len(t, is, len(was))
			assert.NotEqual(t, was[0][tt.changed], is[0][tt.changed], "the edit is in force")
			was[0][tt.changed] = is[0][tt.changed]
			assert.Equal(t, was, is, "every field the dashboard does not carry is kept, in the edited rule and the others")
		})
	}
}

// A writer that knows a field says it, and is obeyed: "regex": true on a
// rule in force without it, "dryRun": false on a dry-run rule.
func TestKeepUncarriedObeysAFieldSaid(t *testing.T) {
	k := datasource.Flow
	_, err := datasource.Load("flow.json", []byte(`[{"resource":"a","count":1,"dryRun":true},{"resource":"b.*","regex":true,"count":1}]`), k)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = datasource.Load("clear", []byte(`[]`), k) })

	set, err := k.Decode("x", []byte(`[{"resource":"a","count":1,"dryRun":false,"regex":false},{"resource":"b.*","regex":true,"count":1,"dryRun":false}]`))
	require.NoError(t, err)
	assert.Zero(t, datasource.KeepUncarried(set), "regex false is Java's default and says nothing, but there is no regex rule in force to take it from")
	require.NoError(t, set.Load())
	data, err := k.Encode()
	require.NoError(t, err)
	assert.False(t, strings.Contains(string(data), `"dryRun":true`), "dryRun false is obeyed: %s", data)
}
