package datasource_test

import (
	"encoding/json"
	"testing"

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
