package datasource_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/authority"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/sentinelgen/sentinelgen/runtime/system"
)

// clearAll empties every real rule kind, before and after a test.
func clearAll(t testing.TB) {
	t.Helper()
	clear := func() {
		require.NoError(t, flow.LoadRules(nil))
		require.NoError(t, degrade.LoadRules(nil))
		require.NoError(t, system.LoadRules(nil))
		require.NoError(t, authority.LoadRules(nil))
		require.NoError(t, paramflow.LoadRules(nil))
	}
	clear()
	t.Cleanup(clear)
}

func TestJavaRuleFilesLoadUnchanged(t *testing.T) {
	tests := []struct {
		file  string
		kind  datasource.Kind
		count func() int
		n     int
	}{
		{"flow.json", datasource.Flow, func() int { return len(flow.Rules()) }, 5},
		{"degrade.json", datasource.Degrade, func() int { return len(degrade.Rules()) }, 3},
		{"system.json", datasource.System, func() int { return len(system.Rules()) }, 2},
		{"authority.json", datasource.Authority, func() int { return len(authority.Rules()) }, 2},
		{"paramflow.json", datasource.ParamFlow, func() int { return len(paramflow.Rules()) }, 2},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			clearAll(t)
			path := filepath.Join("testdata", tt.file)
			n, err := datasource.LoadFile(path, tt.kind, 0)
			require.NoError(t, err)
			assert.Equal(t, tt.n, n)
			assert.Equal(t, tt.n, tt.count())

			data, err := os.ReadFile(path)
			require.NoError(t, err)
			kind, err := datasource.DetectKind(path, data)
			require.NoError(t, err)
			assert.Equal(t, tt.kind, kind, "the kind is told from the file name")
			kind, err = datasource.DetectKind("rules.json", data)
			require.NoError(t, err)
			assert.Equal(t, tt.kind, kind, "the kind is told from the fields")

			// What is in force encodes to JSON that loads back to the same rules.
			out, err := tt.kind.Encode()
			require.NoError(t, err)
			_, err = datasource.Load("encoded", out, tt.kind)
			require.NoError(t, err)
			assert.Equal(t, tt.n, tt.count())
		})
	}
}

func TestJavaFilesSemantics(t *testing.T) {
	clearAll(t)
	_, err := datasource.LoadFile("testdata/flow.json", datasource.Flow, 0)
	require.NoError(t, err)
	rules := flow.Rules()
	require.NotEmpty(t, rules)
	assert.Equal(t, "/api/order", rules[0].Resource)
	assert.Equal(t, 20.0, rules[0].Count)
	assert.Equal(t, 10, rules[0].WarmUpPeriodSec, "null is Java's default")

	_, err = datasource.LoadFile("testdata/paramflow.json", datasource.ParamFlow, 0)
	require.NoError(t, err)
	pr := paramflow.Rules()
	require.Len(t, pr, 2)
	require.NotNil(t, pr[1].ParamIdx)
	assert.Equal(t, 1, *pr[1].ParamIdx)
	assert.Len(t, pr[0].ParamFlowItemList, 2)
}

func TestCombinedJavaFile(t *testing.T) {
	clearAll(t)
	n, err := datasource.LoadFile("testdata/combined.json", datasource.Combined, 0)
	require.NoError(t, err)
	assert.Equal(t, 14, n)
	assert.Len(t, flow.Rules(), 5)
	assert.Len(t, degrade.Rules(), 3)
	assert.Len(t, system.Rules(), 2)
	assert.Len(t, authority.Rules(), 2)
	assert.Len(t, paramflow.Rules(), 2)

	out, err := datasource.Combined.Encode()
	require.NoError(t, err)
	clearAll(t)
	n, err = datasource.Load("encoded", out, datasource.Combined)
	require.NoError(t, err)
	assert.Equal(t, 14, n)
}

func TestRealKindsRefuseWithPreciseErrors(t *testing.T) {
	clearAll(t)
	_, err := datasource.LoadFile("testdata/flow.json", datasource.Flow, 0)
	require.NoError(t, err)
	tests := []struct {
		kind datasource.Kind
		doc  string
	}{
		{datasource.Flow, `[{"resource":"a","count":1},{"resource":"b","count":1},{"resource":"getOrder","count":1,"controlBehavior":-7}]`},
		{datasource.Flow, `[{"resource":"getOrder","count":-1}]`},
		{datasource.Flow, `[{"resource":"getOrder","count":1e400}]`},
		{datasource.Flow, `[{"resource":"","count":1}]`},
		{datasource.Degrade, `[{"resource":"getOrder","grade":9,"count":1,"timeWindow":1}]`},
		{datasource.System, `[{"qps":"lots"}]`},
		{datasource.Authority, `[{"resource":"getOrder","strategy":-4}]`},
		{datasource.ParamFlow, `[{"resource":"getOrder","count":1}]`},
	}
	for _, tt := range tests {
		_, err := datasource.Load("x.json", []byte(tt.doc), tt.kind)
		require.Error(t, err, tt.doc)
		t.Logf("%s", err)
		var de *datasource.Error
		require.ErrorAs(t, err, &de)
		require.NotEmpty(t, de.Rules, "%v", err)
		assert.NotEmpty(t, de.Rules[0].Reason)
	}
	assert.Len(t, flow.Rules(), 5, "refused documents change nothing")
	assert.Empty(t, paramflow.Rules())
}

func TestCheckFilesOnJavaFiles(t *testing.T) {
	clearAll(t)
	paths, err := filepath.Glob("testdata/*.json")
	require.NoError(t, err)
	declared := []string{"/api/order", "getOrder", "listOrders", "reserveStock", "/api/admin", "searchOrder"}
	ps, err := datasource.CheckFiles(paths, declared)
	require.NoError(t, err)
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
		assert.Equal(t, datasource.SeverityWarning, p.Severity)
	}
	assert.Equal(t, []string{
		`testdata/combined.json:15:26: flow: rule 0 (resource "/api/order"): warning: warmUpPeriodSec is null; read as its default 10, as fastjson reads it (Jackson would read 0)`,
		`testdata/combined.json:16:28: flow: rule 0 (resource "/api/order"): warning: maxQueueingTimeMs is null; read as its default 500, as fastjson reads it (Jackson would read 0)`,
		`testdata/combined.json:69:5: flow: rule 4 (resource "reserveStock"): warning: count is 0: the rule blocks every call; fine if meant (a switch that closes the resource), else set the threshold, or add "dryRun": true to see what it would block`,
		`testdata/combined.json:106:29: degrade: rule 1 (resource "/api/order"): warning: slowRatioThreshold is null; read as its default 1, as fastjson reads it (Jackson would read 0)`,
		`testdata/combined.json:204:5: paramFlow: rule 1 (resource "searchOrders"): warning: no declared resource is named "searchOrders" (did you mean "searchOrder"?)`,
		`testdata/degrade.json:29:27: rule 1 (resource "/api/order"): warning: slowRatioThreshold is null; read as its default 1, as fastjson reads it (Jackson would read 0)`,
		`testdata/flow.json:14:24: rule 0 (resource "/api/order"): warning: warmUpPeriodSec is null; read as its default 10, as fastjson reads it (Jackson would read 0)`,
		`testdata/flow.json:15:26: rule 0 (resource "/api/order"): warning: maxQueueingTimeMs is null; read as its default 500, as fastjson reads it (Jackson would read 0)`,
		`testdata/flow.json:68:3: rule 4 (resource "reserveStock"): warning: count is 0: the rule blocks every call; fine if meant (a switch that closes the resource), else set the threshold, or add "dryRun": true to see what it would block`,
		`testdata/paramflow.json:32:3: rule 1 (resource "searchOrders"): warning: no declared resource is named "searchOrders" (did you mean "searchOrder"?)`,
	}, got)
	assert.Empty(t, flow.Rules(), "checking loads nothing")
}
