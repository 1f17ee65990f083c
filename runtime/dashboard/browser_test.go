package dashboard_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
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

// chromiumFlags are what headless Chromium needs on these machines (no
// sandbox as root, no GPU, no background traffic), with a throwaway
// profile.
func chromiumFlags(t *testing.T) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--no-first-run", "--disable-sync", "--disable-dev-shm-usage",
		"--hide-scrollbars", "--user-data-dir=" + t.TempDir(),
	}
}

// chromium runs headless Chromium with args and returns its stdout. The
// test fails, not skips, without Chromium: CI installs it (.ci/chromium.sh).
func chromium(t *testing.T, ctx context.Context, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	require.NoError(t, err, "chromium is not installed: run .ci/chromium.sh (as root)")
	cmd := exec.CommandContext(ctx, bin, append(chromiumFlags(t), args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "chromium: %s", stderr.String())
	return string(out)
}

var (
	cardRE = regexp.MustCompile(`<div class="card resource" data-resource="([^"]+)">`)
	pathRE = regexp.MustCompile(`<path class="line (\w+)" d="([^"]*)" data-series="\w+" data-points="(\d+)" data-total="([0-9.]+)">`)
)

// series is one drawn chart line: how many seconds have a value, and their
// sum.
type series struct {
	points int
	total  float64
	d      string
}

// charts finds each resource card in the DOM and the lines drawn in it.
func charts(t *testing.T, dom string) map[string]map[string]series {
	out := map[string]map[string]series{}
	locs := cardRE.FindAllStringSubmatchIndex(dom, -1)
	for i, loc := range locs {
		end := len(dom)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		name := dom[loc[2]:loc[3]]
		out[name] = map[string]series{}
		for _, m := range pathRE.FindAllStringSubmatch(dom[loc[1]:end], -1) {
			points, _ := strconv.Atoi(m[3])
			total, err := strconv.ParseFloat(m[4], 64)
			require.NoError(t, err)
			out[name][m[1]] = series{points: points, total: total, d: m[2]}
		}
	}
	return out
}

// The page, loaded in a real headless browser from a running handler,
// draws each resource's last minute from the JSON it polls.
func TestPageDrawsChartsInABrowser(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	order, payment := traffic(t, clk, "browser", 40)
	clk.Advance(300 * time.Millisecond)
	for range 4 { // the current second's figures
		if e, b := runtime.Entry(context.Background(), order); b == nil {
			clk.Advance(12 * time.Millisecond)
			e.Exit()
		}
	}
	src := fakeSource{st: datasource.Status{Path: "rules/flow.json", Kind: "flow", Watching: "fsnotify+poll",
		Rules: 1, Loads: 3, Refusals: 1, LastLoad: time.Now(),
		LastError: errors.New(`flow.json: rule 0 (resource "x"): controlBehavior 7 is not one of 0..3`),
		Warnings: []datasource.Warning{{Name: "rules/flow.json", Line: 1, Column: 35, Rule: 0, Resource: "getOrder", Field: "cout",
			Message: `is not a field of this rule; did you mean "count"?`}}}}
	edit := dashboard.RuleFile{Kind: datasource.Flow, Path: filepath.Join(t.TempDir(), "flow.json")}
	srv := httptest.NewServer(dashboard.New(dashboard.WithSource(src), dashboard.WithRuleUpdates(edit)))
	defer srv.Close()

	// A few seconds on an idle machine; the limit allows for a loaded one.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// --virtual-time-budget lets the page's timers run 5 s of virtual time
	// (several polls), waiting for each fetch, before the DOM is dumped and
	// the screenshot taken. The screenshot is kept as the test's artifact
	// (go test -artifacts keeps it under -outputdir): look at it when the
	// page changes.
	shot := filepath.Join(t.ArtifactDir(), "dashboard.png")
	dom := chromium(t, ctx, "--virtual-time-budget=5000", "--window-size=1200,900",
		"--dump-dom", "--screenshot="+shot, srv.URL+"/")
	t.Logf("screenshot: %s", shot)

	polls := regexp.MustCompile(`<body data-polls="(\d+)"`).FindStringSubmatch(dom)
	require.NotNil(t, polls, "the page never polled: %.2000s", dom)
	n, _ := strconv.Atoi(polls[1])
	assert.GreaterOrEqual(t, n, 2, "the page polls every second")

	cs := charts(t, dom)
	require.Contains(t, cs, order, "the busiest resource has a card")
	require.Contains(t, cs, payment)
	o := cs[order]
	assert.Equal(t, 40, o["pass"].points, "40 seconds of passes drawn")
	assert.EqualValues(t, 200, o["pass"].total, "5 a second")
	assert.Equal(t, 40, o["block"].points)
	assert.EqualValues(t, 120, o["block"].total, "3 a second")
	assert.Equal(t, 40, o["rt"].points, "a mean RT every second")
	assert.Greater(t, o["rt"].total, 40*10.0)
	assert.Equal(t, 60, strings.Count(o["pass"].d, "L")+strings.Count(o["pass"].d, "M"), "one vertex per second of the minute")

	p := cs[payment]
	assert.EqualValues(t, 2, p["pass"].total, "the breaker opened after the first second")
	assert.Equal(t, 39, p["block"].points)

	card := dom[strings.Index(dom, `data-resource="`+order+`"`):]
	assert.Contains(t, card, `<b>5</b> pass/s`, "the headline is the last whole second, not the current one's 4 passes so far")
	assert.Contains(t, card, `<b>3</b> block/s`)
	assert.Contains(t, dom, `<td>QPS (1)</td>`, "codes are named, with the code beside")
	assert.Contains(t, dom, `<td>Reject (0)</td>`)
	assert.Contains(t, dom, `<td>error count (2)</td>`)
	assert.NotContains(t, dom, `<th>warmUpPeriodSec</th>`, "a Reject rule has no warm-up period to show")
	assert.NotContains(t, dom, `<th>maxQueueingTimeMs</th>`)
	assert.Contains(t, dom, `(1 rule)`)

	assert.Contains(t, dom, `data-state="OPEN"`, "the payment breaker is shown open")
	assert.Contains(t, dom, `data-kind="flow"`, "the flow rules are listed")
	assert.Contains(t, dom, `data-kind="degrade"`)
	assert.Contains(t, dom, "controlBehavior 7 is not one of 0..3", "the source's last error is shown")
	assert.Contains(t, dom, `<span class="warn">rules/flow.json:1:35: rule 0 (resource "getOrder"): warning: cout is not a field of this rule; did you mean "count"?</span>`,
		"and its warnings")
	assert.Contains(t, dom, `<span class="" id="status">updated `, "the last poll succeeded")
	assert.Contains(t, dom, `<div id="editor">`, "the rule editor shows when updates are on")
	assert.Contains(t, dom, `<option value="flow">flow</option>`)

	st, err := os.Stat(shot)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(10_000), "a real picture, not a blank page")
}
