package dashboard_test

import (
	"context"
	"flag"
	"net/http/httptest"
	"os"
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
)

var updateScreenshot = flag.Bool("update", false, "write "+screenshotPath+", README's picture of the page, from TestPageSaysWhyEachResourceBlocks")

// screenshotPath is README's picture of the page, relative to this
// package.
const screenshotPath = "../../docs/dashboard.png"

// pageWidth is the widest window the page is checked at: a laptop's.
const pageWidth = 1400

// cards cuts the DOM into each resource card's HTML, by name.
func cards(dom string) map[string]string {
	out := map[string]string{}
	locs := cardRE.FindAllStringSubmatchIndex(dom, -1)
	for i, loc := range locs {
		end := len(dom)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		out[dom[loc[2]:loc[3]]] = dom[loc[0]:end]
	}
	return out
}

// The page, in a real browser during a run with a breaker open and a
// thread-count rule blocking, says on each resource's card why it blocks
// (its blocks by kind of rule, the rule that blocked last) and whether a
// rule protects it; the cluster rule reads in words; no table widens the
// page past 1,400 px. With -update it writes README's screenshot.
func TestPageSaysWhyEachResourceBlocks(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	run := runBlocking(t, clk, fresh("orders"), 50)
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	shot := filepath.Join(t.ArtifactDir(), "why.png")
	dom := chromium(t, ctx, "--virtual-time-budget=3000", "--window-size="+strconv.Itoa(pageWidth)+",1350",
		"--dump-dom", "--screenshot="+shot, srv.URL+"/")
	t.Logf("screenshot: %s", shot)
	require.Regexp(t, `<body data-polls="[1-9]`, dom, "the page polled")

	assert.Contains(t, dom, `>protection on</span>`, "the header says what is on")
	cs := cards(dom)
	tests := []struct {
		name     string
		resource string
		want     []string
		not      []string
	}{
		{name: "thread-count rule", resource: run.search, want: []string{
			`data-protected="true"`, `protected: flow`,
			`data-cause="flow"`, `<span data-blocks="flow">flow <b>150</b></span>`,
			`<span class="rule" data-last-rule="flow">flow rule {resource "` + run.search + `", limitApp "default", grade Thread, count 2`,
		}},
		{name: "open breaker", resource: run.payment, want: []string{
			`protected: degrade`, `data-cause="degrade"`, `<span data-blocks="degrade">degrade <b>98</b></span>`,
			`<span class="rule" data-last-rule="degrade">degrade rule {resource "` + run.payment + `", error count above 1`,
		}},
		{name: "cluster rule", resource: run.stock, want: []string{
			`data-cause="flow"`, `flow (cluster rule): `, `cluster mode}`,
		}},
		{name: "no rule", resource: run.health, want: []string{`data-protected="false"`, `observed only`},
			not: []string{`data-cause`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			card, ok := cs[tt.resource]
			require.True(t, ok, "a card for %s", tt.resource)
			for _, w := range tt.want {
				assert.Contains(t, card, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, card, n)
			}
		})
	}
	assert.Contains(t, dom, `<td>flowId 7 · global threshold · falls back to local · window 1000 ms in 10</td>`,
		"a cluster rule's settings in words")

	m := regexp.MustCompile(`data-scroll-width="(\d+)"`).FindStringSubmatch(dom)
	require.NotNil(t, m)
	width, _ := strconv.Atoi(m[1])
	assert.LessOrEqual(t, width, pageWidth, "no table overflows the page")

	if *updateScreenshot {
		data, err := os.ReadFile(shot)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(screenshotPath, data, 0o644))
		t.Logf("wrote %s", screenshotPath)
	}
}

// README's picture of the page is there, a PNG of the width the page is
// checked at (go test -run TestPageSaysWhyEachResourceBlocks -update
// writes it again).
func TestREADMEScreenshotIsThePage(t *testing.T) {
	data, err := os.ReadFile(screenshotPath)
	require.NoError(t, err, "go test ./runtime/dashboard -run TestPageSaysWhyEachResourceBlocks -update writes it")
	require.Greater(t, len(data), 24)
	assert.Equal(t, "\x89PNG\r\n\x1a\n", string(data[:8]))
	width := int(data[16])<<24 | int(data[17])<<16 | int(data[18])<<8 | int(data[19])
	assert.Equal(t, pageWidth, width)
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(readme), "](docs/dashboard.png)"), "README shows docs/dashboard.png")
}
