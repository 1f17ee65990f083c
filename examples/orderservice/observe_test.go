package main

import (
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMetricsEndpointExportsTheResources(t *testing.T) {
	a := startTestApp(t)
	a.nextSecond()
	a.statuses(25, http.MethodGet, "/api/order?id=1")
	code, body := a.call(http.MethodGet, "/metrics", "")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `sentinel_resource_pass_total{resource="/api/order"} 20`)
	assert.Contains(t, body, `sentinel_resource_block_total{resource="/api/order"} 5`)
	assert.Contains(t, body, `resource="getOrder"`)
}

// The live page, loaded from the running service in headless Chromium
// (installed by .ci/chromium.sh), draws the traffic the test drove.
func TestDashboardPageDrawsTheServicesTraffic(t *testing.T) {
	a := startTestApp(t)
	for range 5 {
		a.nextSecond()
		a.statuses(25, http.MethodGet, "/api/order?id=1")
		a.statuses(3, http.MethodGet, "/api/orders?user=alice")
	}
	a.nextSecond() // the page charts whole seconds

	bin, err := exec.LookPath("chromium")
	require.NoError(t, err, "chromium is not installed: run .ci/chromium.sh (as root)")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	shot := filepath.Join(t.ArtifactDir(), "orderservice-dashboard.png")
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--no-first-run", "--disable-sync", "--disable-dev-shm-usage",
		"--hide-scrollbars", "--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=5000", "--window-size=1200,900", "--screenshot="+shot, "--dump-dom",
		a.URL()+"/sentinel/")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "chromium: %s", stderr.String())
	dom := string(out)
	t.Logf("screenshot: %s", shot)

	assert.Contains(t, dom, `data-resource="/api/order"`, "the URL resource has a chart")
	assert.Contains(t, dom, `data-resource="getOrder"`, "so does the method it calls")
	passes := regexp.MustCompile(`data-resource="/api/order">(?s:.*?)<path class="line pass" d="[^"]*" data-series="\w+" data-points="(\d+)" data-total="([0-9.]+)"`).FindStringSubmatch(dom)
	require.NotNil(t, passes, "the /api/order chart has a pass line")
	assert.Equal(t, "100", passes[2], "five seconds of 20 passes, drawn")
	assert.Contains(t, dom, `data-kind="flow"`, "the rules in force are listed")
}
