package dashboard_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The adaptive limits are in the snapshot and under api/limiters, with
// their state, and their rules in the rules table.
func TestAdaptiveLimitsAreShown(t *testing.T) {
	clocktest.Install(t)
	require.NoError(t, adaptive.LoadRules([]adaptive.Rule{{Resource: "dash-adaptive", MinLimit: 2, DryRun: true}}))
	t.Cleanup(func() { _ = adaptive.LoadRules(nil) })
	e, b := runtime.Entry(context.Background(), "dash-adaptive")
	require.Nil(t, b)
	defer e.Exit()
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()

	var ls []adaptive.State
	getJSON(t, srv, "/api/limiters", &ls)
	require.Len(t, ls, 1)
	assert.Equal(t, "dash-adaptive", ls[0].Resource)
	assert.Equal(t, int64(2), ls[0].Limit)
	assert.Equal(t, int64(1), ls[0].InFlight)
	assert.True(t, ls[0].Probing)
	assert.True(t, ls[0].Rule.DryRun)

	var snap dashboard.Snapshot
	getJSON(t, srv, "/api/snapshot", &snap)
	require.Len(t, snap.Limiters, 1)
	assert.Equal(t, int64(1), snap.Limiters[0].InFlight)
	_, body := get(t, srv, "/api/rules")
	assert.Contains(t, body, `"adaptive":[{"resource":"dash-adaptive","minLimit":2`)
	_, page := get(t, srv, "/")
	assert.Contains(t, page, "renderLimiters(s.limiters)")
}

func TestNoAdaptiveLimitsIsAnEmptyList(t *testing.T) {
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()
	_, body := get(t, srv, "/api/limiters")
	assert.JSONEq(t, `[]`, body)
}

func TestPageShowsAdaptiveLimitsInABrowser(t *testing.T) {
	clocktest.Install(t)
	require.NoError(t, adaptive.LoadRules([]adaptive.Rule{{Resource: "browser.adaptive", MinLimit: 2, MaxLimit: 50, DryRun: true}}))
	t.Cleanup(func() { _ = adaptive.LoadRules(nil) })
	e, b := runtime.Entry(context.Background(), "browser.adaptive")
	require.Nil(t, b)
	defer e.Exit()
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dom := chromium(t, ctx, "--virtual-time-budget=3000", "--dump-dom", srv.URL+"/")
	assert.Contains(t, dom, `<td>browser.adaptive</td><td class="num">2</td><td>2–50</td><td class="num">1</td>`)
	assert.Contains(t, dom, `data-state="probing">probing<span class="dryrun" data-dry-run="adaptive"> (dry run: admits every call)</span>`)
	assert.Contains(t, dom, `<th>rttTolerance</th>`, "the rules table has the adaptive rules")
}

// Adaptive rules are edited and saved like the others: under "adaptive"
// in an update of the combined file, which is written back with the other
// kinds' rules kept.
func TestAdaptiveRuleUpdatesAreSavedToTheCombinedFile(t *testing.T) {
	t.Cleanup(func() { _ = adaptive.LoadRules(nil); _ = flow.LoadRules(nil) })
	path := filepath.Join(t.TempDir(), "sentinel.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"flow": [{"resource": "dash.kept", "count": 5}]}`), 0o600))
	src, err := file.Watch(context.Background(), path, datasource.Combined, file.WithoutFSNotify())
	require.NoError(t, err)
	defer src.Close()
	srv := httptest.NewServer(dashboard.New(dashboard.WithRuleUpdates(dashboard.RuleFile{Kind: datasource.Combined, Path: path})))
	defer srv.Close()

	code, body := put(t, srv, "/api/rules/combined", `{"adaptive": [{"resource":"dash.adaptive","maxLimit":64}]}`)
	require.Equal(t, http.StatusOK, code, body)
	require.Len(t, adaptive.Rules(), 1)
	assert.Equal(t, 64, adaptive.Rules()[0].MaxLimit)
	saved, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(saved), `"adaptive":[{"resource":"dash.adaptive","minLimit":3,"maxLimit":64`)
	assert.Contains(t, string(saved), `"dash.kept"`)

	code, body = put(t, srv, "/api/rules/combined", `{"adaptive": [{"resource":"dash.adaptive","maxLimit":-1}]}`)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, "maxLimit")
	assert.Equal(t, 64, adaptive.Rules()[0].MaxLimit, "a refused update changes nothing")
}
