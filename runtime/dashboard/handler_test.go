package dashboard_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

func TestResourcesWithHistory(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	order, _ := traffic(t, clk, "dashboard.history", 3)
	clk.Advance(300 * time.Millisecond) // into the 4th second
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()

	var rs []dashboard.Resource
	getJSON(t, srv, "/api/resources?history=1&name="+order, &rs)
	require.Len(t, rs, 1)
	r := rs[0]
	assert.Equal(t, order, r.Name)
	assert.Equal(t, "in", r.Traffic)
	h := r.History
	require.NotNil(t, h)
	for _, s := range [][]int64{h.Pass, h.Block, h.Success, h.Error, h.MinRT} {
		require.Len(t, s, dashboard.HistorySeconds, "a dense minute")
	}
	assert.EqualValues(t, clk.Millis()-clk.Millis()%1000-60_000, h.Start, "the 60 whole seconds before now")
	n := dashboard.HistorySeconds
	assert.Equal(t, []int64{5, 5, 5}, h.Pass[n-3:], "5 admitted each second")
	assert.Equal(t, []int64{3, 3, 3}, h.Block[n-3:], "3 blocked each second")
	assert.Equal(t, []int64{0, 0, 0}, h.Pass[n-6:n-3], "nothing before")
	assert.Greater(t, h.AvgRT[n-1], 9.0)
	assert.GreaterOrEqual(t, h.MinRT[n-1], int64(10))
	assert.EqualValues(t, 15, r.Metrics.MinutePass)

	// Without history, every resource is listed with its figures.
	var all []dashboard.Resource
	getJSON(t, srv, "/api/resources", &all)
	var found bool
	for _, r := range all {
		assert.Nil(t, r.History)
		found = found || r.Name == order
	}
	assert.True(t, found)

	code, _ := get(t, srv, "/api/resources?name=no.such.resource")
	assert.Equal(t, http.StatusNotFound, code)
}

func TestSnapshot(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	order, payment := traffic(t, clk, "dashboard.snapshot", 2)
	src := fakeSource{st: datasource.Status{Path: "rules/degrade.json", Kind: "degrade", Watching: "poll", Refusals: 1,
		LastError: errors.New(`degrade.json: rule 0 (resource "x"): timeWindow 0 is not > 0`),
		Warnings: []datasource.Warning{{Name: "rules/degrade.json", Line: 1, Column: 3, Rule: 0, Field: "cout",
			Message: `is not a field of this rule; did you mean "count"?`}}}}
	srv := httptest.NewServer(dashboard.New(dashboard.WithSource(src)))
	defer srv.Close()

	var s dashboard.Snapshot
	getJSON(t, srv, "/api/snapshot", &s)
	assert.Equal(t, clk.Millis(), s.Now)
	require.GreaterOrEqual(t, len(s.Resources), 2)
	assert.Equal(t, order, s.Resources[0].Name, "the busiest first")
	assert.Equal(t, payment, s.Resources[1].Name)
	for _, r := range s.Resources {
		assert.NotNil(t, r.History)
	}
	assert.EqualValues(t, 10, s.Inbound.Metrics.MinutePass, "order is inbound")
	assert.Len(t, s.Rules["flow"], 1)
	assert.Len(t, s.Rules["degrade"], 1)
	assert.Empty(t, s.Rules["system"])
	require.Len(t, s.Breakers, 1)
	assert.Equal(t, payment, s.Breakers[0].Resource)
	assert.Equal(t, "OPEN", s.Breakers[0].State)
	assert.Greater(t, s.Breakers[0].NextRetryMillis, s.Now)
	require.Len(t, s.Sources, 1)
	assert.Contains(t, s.Sources[0].LastError, "timeWindow 0")
	assert.Equal(t, []string{`rules/degrade.json:1:3: rule 0: warning: cout is not a field of this rule; did you mean "count"?`}, s.Sources[0].Warnings,
		"the sources table shows what the log says")
	assert.Nil(t, s.Sources[0].LastLoad)
	assert.Empty(t, s.Editable)
}

func TestPageLimitKeepsTheBusiest(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	order, _ := traffic(t, clk, "dashboard.limit", 1)
	srv := httptest.NewServer(dashboard.New(dashboard.WithPageLimit(1)))
	defer srv.Close()
	var s dashboard.Snapshot
	getJSON(t, srv, "/api/snapshot", &s)
	require.Len(t, s.Resources, 1)
	assert.Equal(t, order, s.Resources[0].Name)
}

func TestReadOnlyEndpoints(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	order, _ := traffic(t, clk, "dashboard.endpoints", 1)
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()

	tests := []struct {
		name, path string
		code       int
		contains   []string
	}{
		{"page", "/", http.StatusOK, []string{"<!doctype html>", "api/snapshot"}},
		{"tree", "/api/tree", http.StatusOK, []string{`"kind":"entrance","name":"dashboard_test"`, `"name":"` + order + `"`}},
		{"rules as a combined file", "/api/rules", http.StatusOK, []string{`"flow":[{"resource":"` + order + `"`, `"degrade":[`, `"paramFlow":[]`}},
		{"breakers", "/api/breakers", http.StatusOK, []string{`"state":"`}},
		{"sources", "/api/sources", http.StatusOK, []string{`[]`}},
		{"slots", "/api/slots", http.StatusOK, []string{`"name":"FlowSlot"`}},
		{"unknown path", "/api/nothing", http.StatusNotFound, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := get(t, srv, tt.path)
			assert.Equal(t, tt.code, code)
			for _, c := range tt.contains {
				assert.Contains(t, body, c)
			}
		})
	}
}

func TestPageIsSelfContained(t *testing.T) {
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'self'")
	_, body := get(t, srv, "/")
	for _, external := range []string{"http://", "https://", "src=\"/", "href=\""} {
		if external == "http://" {
			body = strings.ReplaceAll(body, `"http://www.w3.org/2000/svg"`, "") // a namespace, not a fetch
		}
		assert.NotContains(t, body, external)
	}
}

// Mounted under a prefix, the page's relative URLs still reach the JSON.
func TestMountedUnderAPrefix(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/sentinel/", http.StripPrefix("/sentinel", dashboard.New()))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	code, body := get(t, srv, "/sentinel/")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `fetch("api/snapshot"`)
	code, _ = get(t, srv, "/sentinel/api/snapshot")
	assert.Equal(t, http.StatusOK, code)
}

func TestSnapshotShowsTheGlobalSwitch(t *testing.T) {
	defer runtime.SetClock(clocktest.New())() // a fresh minute: nothing was called in it
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()
	defer runtime.SetEnabled(true)
	_, raw := get(t, srv, "/api/snapshot")
	assert.Contains(t, raw, `"resources":[]`, "an idle service's page still renders")

	var s dashboard.Snapshot
	getJSON(t, srv, "/api/snapshot", &s)
	assert.True(t, s.Enabled)

	runtime.SetEnabled(false)
	getJSON(t, srv, "/api/snapshot", &s)
	assert.False(t, s.Enabled, "the page shows the switch off")
	_, page := get(t, srv, "/")
	assert.Contains(t, page, `id="switch"`)
}

// Java's node reads a minimum RT of 5000 ms while nothing completed; the
// JSON says 0, and the page shows no figure.
func TestAnIdleResourceHasNoMinimumRT(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	name := "dashboard.idle"
	e, b := runtime.Entry(context.Background(), name)
	require.Nil(t, b)
	e.Exit()
	clk.Advance(3 * time.Second) // the call leaves the second window
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()
	var rs []dashboard.Resource
	getJSON(t, srv, "/api/resources?name="+name, &rs)
	require.Len(t, rs, 1)
	assert.Zero(t, rs[0].Metrics.SuccessQPS)
	assert.Zero(t, rs[0].Metrics.MinRT, "no minimum while nothing completed")
}
