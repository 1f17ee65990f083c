package dashboard_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
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
