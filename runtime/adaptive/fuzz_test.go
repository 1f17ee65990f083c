package adaptive_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
)

// FuzzRuleJSON: decoding, validating, loading and re-encoding any rule
// never panics, a valid rule survives a round trip with its defaults, and
// calls under it neither panic nor leak a slot.
func FuzzRuleJSON(f *testing.F) {
	for _, seed := range []string{
		`{"resource":"a"}`,
		`{"resource":"a","minLimit":2,"maxLimit":50,"initialLimit":10,"rttTolerance":1.5,"sampleIntervalMs":200,"minSamples":5,"probeIntervalMs":30000,"probeSamples":20,"maxQueueingTimeMs":5,"dryRun":true}`,
		`{"resource":"a","maxLimit":0,"rttTolerance":1e308}`,
		`{"resource":"a","minLimit":-1,"initialLimit":1e9}`,
		`{"resource":"a","rttTolerance":"1.5"}`,
		`{"resource":"\xff","maxLimit":1}`,
		`[1,2]`, `null`, `{"maxLimit":"x"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var r adaptive.Rule
		if json.Unmarshal([]byte(doc), &r) != nil || adaptive.ValidateRules([]adaptive.Rule{r}) != nil {
			return
		}
		b, err := json.Marshal(r)
		require.NoError(t, err)
		var back adaptive.Rule
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, r, back, string(b))

		require.NoError(t, adaptive.LoadRules([]adaptive.Rule{r}))
		defer func() { _ = adaptive.LoadRules(nil) }()
		var entries []*runtime.SentinelEntry
		for range 3 {
			if e, b := runtime.Entry(context.Background(), r.Resource); b == nil {
				entries = append(entries, e)
			}
		}
		for _, e := range entries {
			e.Exit()
		}
		require.Zero(t, runtime.LookupResource(r.Resource).ClusterNode().Threads(), "no slot leaks")
	})
}
