package cluster_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/cluster"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSettingsFromACombinedRuleFile(t *testing.T) {
	s := testserver.StartRedis(t)
	t.Setenv("CLUSTER_TEST_PASSWORD", "")
	kind := datasource.NewKind("cluster", cluster.SettingsProperty(), cluster.ValidateSettings, cluster.LoadedSettings)
	combined := datasource.NewCombined(datasource.Flow, kind)
	t.Cleanup(func() {
		require.NoError(t, cluster.LoadSettings(nil))
		_ = flow.LoadRules(nil)
	})
	doc := fmt.Sprintf(`{
	  "flow": [{"resource": "from-file", "grade": 1, "count": 5, "clusterMode": true,
	            "clusterConfig": {"flowId": 41, "thresholdType": 1, "sampleCount": 1, "windowIntervalMs": 60000}}],
	  "cluster": [{"addr": %q, "keyPrefix": "file:", "passwordEnv": "CLUSTER_TEST_PASSWORD", "timeoutMs": 300}]
	}`, s.Addr())
	_, err := datasource.Load("rules.json", []byte(doc), combined)
	require.NoError(t, err)
	assert.Equal(t, []cluster.Settings{{Addr: s.Addr(), KeyPrefix: "file:", PasswordEnv: "CLUSTER_TEST_PASSWORD", TimeoutMs: 300}},
		cluster.LoadedSettings())

	other := newClient(t, s, "file:")
	rule := flow.Rules()[0]
	ok, err := other.Check(context.Background(), &rule, 4)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 1, calls("from-file", 5), "counted in Redis: 4 of 5 taken by another instance")

	_, err = datasource.Load("rules.json", []byte(`{"cluster": []}`), combined)
	require.NoError(t, err)
	assert.Empty(t, cluster.LoadedSettings())
	n := calls("from-file", 6)
	assert.Contains(t, []int{4, 5}, n, "no settings: checked locally again, 5 a second (1 may have passed this second)")
}

func TestSettingsAreValidated(t *testing.T) {
	err := cluster.ValidateSettings([]cluster.Settings{
		{Addr: "", TimeoutMs: -1, PasswordEnv: "CLUSTER_TEST_SURELY_UNSET"},
		{Addr: "a:1"},
	})
	var errs runtime.RuleErrors
	require.ErrorAs(t, err, &errs)
	fields := map[string]bool{}
	for _, e := range errs {
		fields[e.Field] = true
	}
	assert.Equal(t, map[string]bool{"": true, "addr": true, "timeoutMs": true, "passwordEnv": true}, fields)
	assert.ErrorAs(t, cluster.LoadSettings([]cluster.Settings{{}}), &errs, "refused whole")
	assert.Empty(t, cluster.LoadedSettings())
}

// A Sentinel or Redis Cluster deployment from a rule file: addrs (and
// masterName) instead of addr.
func TestSettingsForClusterAndSentinel(t *testing.T) {
	require.NoError(t, cluster.ValidateSettings([]cluster.Settings{{Addrs: []string{"a:1", "b:2", "c:3"}, Leases: true}}))
	require.NoError(t, cluster.ValidateSettings([]cluster.Settings{{Addrs: []string{"s:26379"}, MasterName: "mymaster"}}))
	err := cluster.ValidateSettings([]cluster.Settings{{Addr: "a:1", MasterName: "mymaster"}})
	var errs runtime.RuleErrors
	require.ErrorAs(t, err, &errs)
	require.Len(t, errs, 1)
	assert.Equal(t, "addrs", errs[0].Field)
	cfg := cluster.Settings{Addrs: []string{"s:26379"}, MasterName: "mymaster", Leases: true}.Config()
	assert.Equal(t, []string{"s:26379"}, cfg.Addrs)
	assert.Equal(t, "mymaster", cfg.MasterName)
	assert.True(t, cfg.Leases)
}

// The rule document for three instances in docs/operating.md is one the
// instances load: every section, field and value valid.
func TestTheOperatingGuidesFleetDocumentIsValid(t *testing.T) {
	guide, err := os.ReadFile("../../docs/operating.md")
	require.NoError(t, err)
	text := string(guide)
	at := strings.Index(text, "### A rule document for three instances")
	require.NotEqual(t, -1, at, "the guide has the section")
	text = text[at:]
	start := strings.Index(text, "```json\n")
	require.NotEqual(t, -1, start)
	text = text[start+len("```json\n"):]
	doc := text[:strings.Index(text, "```")]
	t.Setenv("REDIS_PASSWORD", "secret")
	kind := datasource.NewKind("cluster", cluster.SettingsProperty(), cluster.ValidateSettings, cluster.LoadedSettings)
	for _, p := range datasource.Check("operating.md", []byte(doc), datasource.NewCombined(datasource.Flow, datasource.ParamFlow, kind), nil) {
		assert.NotEqual(t, datasource.SeverityError, p.Severity, "%s", p)
	}
}
