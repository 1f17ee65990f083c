package dashboard_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// dryRunTraffic loads a dry-run flow rule and a dry-run breaker beside an
// enforcing flow rule, and drives calls until the breaker would be open.
func dryRunTraffic(t *testing.T, clk *clocktest.Clock, prefix string) (dry, enforcing string) {
	t.Helper()
	dry, enforcing = prefix+".dry", prefix+".enforcing"
	require.NoError(t, flow.LoadRules([]flow.Rule{
		{Resource: dry, Grade: flow.GradeQPS, Count: 2, DryRun: true},
		{Resource: enforcing, Grade: flow.GradeQPS, Count: 2},
	}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: dry, Grade: degrade.ErrorCount, Count: 1,
		TimeWindow: 60, MinRequestAmount: 1, DryRun: true}}))
	t.Cleanup(func() { _ = degrade.LoadRules(nil) })
	for _, res := range []string{dry, enforcing} {
		for range 5 {
			if e, b := runtime.Entry(context.Background(), res); b == nil {
				e.Exit(runtime.WithError(errors.New("boom")))
			}
		}
	}
	clk.Advance(1100 * time.Millisecond)
	return dry, enforcing
}

// The JSON shows each resource's would-be blocks by kind, and a dry-run
// breaker in the state it would be in, beside the enforcing rules.
func TestSnapshotShowsDryRun(t *testing.T) {
	clk := clocktest.Install(t)
	dry, enforcing := dryRunTraffic(t, clk, fresh("dashboard.dryrun"))
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()

	var s dashboard.Snapshot
	getJSON(t, srv, "/api/snapshot", &s)
	byName := map[string]dashboard.Resource{}
	for _, r := range s.Resources {
		byName[r.Name] = r
	}
	require.Contains(t, byName, dry)
	assert.Equal(t, map[string]int64{"flow": 3, "degrade": 3}, byName[dry].DryRunBlocks)
	assert.Nil(t, byName[enforcing].DryRunBlocks, "enforcing rules block; they have no would-be blocks")
	require.Len(t, s.Breakers, 1)
	assert.True(t, s.Breakers[0].DryRun)
	assert.Equal(t, "OPEN", s.Breakers[0].State, "the state it would be in")
	flows, ok := s.Rules["flow"].([]any)
	require.True(t, ok, "%T", s.Rules["flow"])
	require.Len(t, flows, 2)
	assert.Equal(t, true, flows[0].(map[string]any)["dryRun"])
	assert.NotContains(t, flows[1].(map[string]any), "dryRun", "enforcing rules are listed as Java writes them")
}

// The page marks would-be blocks and dry-run breakers.
func TestPageShowsDryRunInABrowser(t *testing.T) {
	clk := clocktest.Install(t)
	dryRunTraffic(t, clk, fresh("browser.dryrun"))
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dom := chromium(t, ctx, "--virtual-time-budget=3000", "--dump-dom", srv.URL+"/")
	assert.Contains(t, dom, `data-dry-run="flow"><b>3</b> would-be flow blocks (dry run)`)
	assert.Contains(t, dom, `data-dry-run="degrade"> (dry run: the state it would be in)`)
	assert.Contains(t, dom, `<th>dryRun</th>`, "the rules table has the dryRun column")
	assert.True(t, strings.Contains(dom, `data-protected="true" title="a rule applies to this resource">protected: degrade (dry run), flow (dry run)</span>`),
		"the badge says the rules naming the resource only watch")
}
