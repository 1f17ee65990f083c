package main

import (
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With -dashboard the service registers with a sentinel-dashboard, and
// rules set there are in force and written to the watched rule file.
func TestRegistersWithASentinelDashboardAndTakesItsRules(t *testing.T) {
	a := startTestApp(t)
	registered := make(chan url.Values, 10)
	dash := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/registry/machine" && r.ParseForm() == nil {
			select {
			case registered <- r.PostForm:
			default:
			}
		}
		_, _ = w.Write([]byte(`{"success":true,"code":0,"msg":"success"}`))
	}))
	defer dash.Close()

	d := &sentinelDashboard{dashboard: strings.TrimPrefix(dash.URL, "http://"), api: "127.0.0.1:0"}
	stop, err := d.start(context.Background(), a.rules, io.Discard)
	require.NoError(t, err)
	defer func() { require.NoError(t, stop()) }()

	var hb url.Values
	select {
	case hb = <-registered:
	case <-time.After(10 * time.Second):
		t.Fatal("no heartbeat")
	}
	assert.Equal(t, "orderservice", hb.Get("app"))
	assert.Equal(t, "127.0.0.1", hb.Get("ip"))
	api := "http://127.0.0.1:" + hb.Get("port")

	data := `[{"resource":"/api/order","limitApp":"default","grade":1,"count":1,"strategy":0,"controlBehavior":0,"clusterMode":false}]`
	resp, err := http.PostForm(api+"/setRules", url.Values{"type": {"flow"}, "data": {data}})
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Equal(t, "success", string(body))

	saved, err := os.ReadFile(filepath.Join(a.rules, "flow.json"))
	require.NoError(t, err)
	assert.Contains(t, string(saved), `"resource":"/api/order"`)
	assert.Contains(t, string(saved), `"count":1`)

	a.nextSecond()
	codes := a.statuses(3, http.MethodGet, "/api/order?id=1")
	assert.Equal(t, 1, codes[http.StatusOK], "the dashboard's limit of 1 applies: %v", codes)
	assert.Equal(t, 2, codes[http.StatusTooManyRequests])
}

// -h names the built-in page; the Java dashboard's flag says it is not
// that page, and its old name, -dashboard, still works and says it is
// deprecated.
func TestFlagsNameThePageApartFromTheJavaDashboard(t *testing.T) {
	var stdout, stderr strings.Builder
	err := run(context.Background(), []string{"-h"}, &stdout, &stderr)
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, stderr.String(), "Its\nlive page is at http://ADDR/sentinel/")
	assert.Contains(t, stderr.String(), "-java-dashboard string\n    \ta Java sentinel-dashboard server")
	assert.Contains(t, stderr.String(), "not the built-in page, which is always at /sentinel/")

	tests := []struct {
		name, flag string
		deprecated bool
	}{
		{name: "the new name", flag: "-java-dashboard"},
		{name: "the old name, deprecated", flag: "-dashboard", deprecated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			flags := flag.NewFlagSet("orderservice", flag.ContinueOnError)
			flags.SetOutput(&out)
			d := addDashboardFlags(flags)
			require.NoError(t, flags.Parse([]string{tt.flag, "127.0.0.1:8858"}))
			assert.Equal(t, "127.0.0.1:8858", d.dashboard)
			if tt.deprecated {
				assert.Equal(t, "orderservice: -dashboard is deprecated: use -java-dashboard (a Java sentinel-dashboard server; the built-in page is always at /sentinel/)\n", out.String())
			} else {
				assert.Empty(t, out.String())
			}
		})
	}
}
