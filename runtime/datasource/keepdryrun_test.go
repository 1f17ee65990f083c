package datasource_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// A writer that knows nothing of dryRun (Java's dashboard) reads the rules
// in force and sends them back without it: each kind's dry-run rule is
// recognised, equal in every other field, and stays a dry run.
func TestKeepDryRunRecognisesEveryKindsRuleSentBackWithoutIt(t *testing.T) {
	docs := map[string]string{
		"flow":      `[{"resource":"a","grade":1,"count":0,"clusterMode":true,"clusterConfig":{"flowId":7,"thresholdType":1},"dryRun":true},{"resource":"a","grade":0,"count":3}]`,
		"degrade":   `[{"resource":"a","grade":2,"count":1,"timeWindow":10,"dryRun":true},{"resource":"b","grade":2,"count":1,"timeWindow":10}]`,
		"system":    `[{"qps":0,"dryRun":true},{"maxThread":100}]`,
		"authority": `[{"resource":"a","limitApp":"appA","strategy":1,"dryRun":true},{"resource":"b","limitApp":"appA","strategy":1}]`,
		"adaptive":  `[{"resource":"a","maxLimit":50,"dryRun":true},{"resource":"b","maxLimit":50}]`,
		"paramFlow": `[{"resource":"a","paramIdx":0,"count":0,"paramFlowItemList":[{"classType":"int","object":"7","count":1}],"dryRun":true},{"resource":"a","paramIdx":1,"count":5}]`,
	}
	for _, k := range datasource.Kinds() {
		t.Run(k.Name(), func(t *testing.T) {
			_, err := datasource.Load(k.Name()+".json", []byte(docs[k.Name()]), k)
			require.NoError(t, err)
			t.Cleanup(func() { _, _ = datasource.Load("clear", []byte(`[]`), k) })

			data, err := k.Encode()
			require.NoError(t, err)
			var read []map[string]any
			require.NoError(t, json.Unmarshal(data, &read))
			for _, r := range read {
				delete(r, "dryRun")
			}
			sent, err := json.Marshal(read)
			require.NoError(t, err)
			set, err := k.Decode("from the dashboard", sent)
			require.NoError(t, err)
			assert.Equal(t, 1, datasource.KeepDryRun(set))
			require.NoError(t, set.Load())
			again, err := k.Encode()
			require.NoError(t, err)
			assert.JSONEq(t, string(data), string(again), "nothing changed")
		})
	}
}

func TestKeepDryRunObeysARuleThatSaysDryRun(t *testing.T) {
	k := datasource.Authority
	_, err := datasource.Load("a.json", []byte(`[{"resource":"a","limitApp":"appA","dryRun":true}]`), k)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = datasource.Load("clear", []byte(`[]`), k) })
	set, err := k.Decode("x", []byte(`[{"resource":"a","limitApp":"appA","DryRun":false}]`))
	require.NoError(t, err)
	assert.Zero(t, datasource.KeepDryRun(set))
	assert.Zero(t, datasource.KeepDryRun(nil))
	combined, err := datasource.Combined.Decode("x", []byte(`{"authority":[{"resource":"a","limitApp":"appA"}]}`))
	require.NoError(t, err)
	assert.Zero(t, datasource.KeepDryRun(combined), "a combined set is left as it is")
}

// pushDocument is a document of n rules of kind, one a resource, as in
// force (dry runs) or as the dashboard sends them back edited (without
// dryRun, one field changed).
func pushDocument(kind string, n int, edited bool) []byte {
	v := 1
	if edited {
		v = 2
	}
	rules := make([]map[string]any, n)
	for i := range rules {
		res := fmt.Sprintf("/api/r%d", i)
		switch kind {
		case "degrade":
			rules[i] = map[string]any{"resource": res, "grade": 2, "count": 1, "timeWindow": 10 * v}
		case "authority":
			rules[i] = map[string]any{"resource": res, "limitApp": "appA", "strategy": v - 1}
		case "paramFlow":
			rules[i] = map[string]any{"resource": res, "paramIdx": 0, "count": 5 * v}
		case "adaptive":
			rules[i] = map[string]any{"resource": res, "maxLimit": 50 * v}
		default:
			rules[i] = map[string]any{"resource": res, "count": 5 * v}
		}
		if !edited {
			rules[i]["dryRun"] = true
		}
	}
	data, _ := json.Marshal(rules)
	return data
}

// Java's dashboard pushes every rule of a kind at once, without dryRun.
// Matching each pushed rule with one in force compared every pair: 3,000
// edited rules over 3,000 in force took 1.7 s, the first push 17 ms, and
// the dashboard's connection dropped on a loaded machine. The rules in
// force are indexed by key: a push costs about what a first push costs,
// in every kind with resources (system rules are few).
func TestADashboardPushCostsAboutAFirstPush(t *testing.T) {
	const n = 3000
	for _, k := range []datasource.Kind{datasource.Flow, datasource.Degrade, datasource.Authority, datasource.ParamFlow, datasource.Adaptive} {
		t.Run(k.Name(), func(t *testing.T) {
			t.Cleanup(func() { _, _ = datasource.Load("clear", []byte(`[]`), k) })
			inForce, edited := pushDocument(k.Name(), n, false), pushDocument(k.Name(), n, true)
			push := func(before []byte) (time.Duration, int) {
				_, err := datasource.Load("before", before, k)
				require.NoError(t, err)
				start := time.Now()
				set, err := k.Decode("from the dashboard", edited)
				require.NoError(t, err)
				kept := datasource.KeepUncarried(set)
				require.NoError(t, set.Load())
				return time.Since(start), kept
			}
			first, over := time.Duration(1<<63-1), time.Duration(1<<63-1)
			for range 3 {
				d, kept := push([]byte(`[]`))
				assert.Zero(t, kept)
				first = min(first, d)
				d, kept = push(inForce)
				assert.Equal(t, n, kept, "each edited rule keeps its dry run")
				over = min(over, d)
			}
			assert.Less(t, over, 5*first+100*time.Millisecond, "a push over %d rules in force took %v, into none %v", n, over, first)
		})
	}
}

// BenchmarkDashboardPush is a push of 3,000 edited flow rules, decoded,
// matched with the rules in force and loaded: into none, and over 3,000
// dry-run rules in force.
func BenchmarkDashboardPush(b *testing.B) {
	k := datasource.Flow
	b.Cleanup(func() { _, _ = datasource.Load("clear", []byte(`[]`), k) })
	const n = 3000
	edited := pushDocument("flow", n, true)
	for _, bb := range []struct {
		name   string
		before []byte
	}{{"into none", []byte(`[]`)}, {"over 3000 in force", pushDocument("flow", n, false)}} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				_, err := datasource.Load("before", bb.before, k)
				require.NoError(b, err)
				b.StartTimer()
				set, err := k.Decode("from the dashboard", edited)
				require.NoError(b, err)
				datasource.KeepUncarried(set)
				require.NoError(b, set.Load())
			}
		})
	}
}
