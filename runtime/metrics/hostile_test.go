package metrics_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/metrics"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// scrape serves reg as /metrics does and returns the status and body.
func scrape(t *testing.T, reg *prometheus.Registry) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}).
		ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	return rec.Code, rec.Body.String()
}

func TestNonUTF8OriginDoesNotBreakTheScrape(t *testing.T) {
	clocktest.Install(t)
	reg, _ := newRegistry(t, metrics.WithOrigins(10))
	const res = "metrics.hostile.origin"
	ctx := runtime.EnterContext(context.Background(), "metrics_hostile", "ab\xff")
	e, b := runtime.Entry(ctx, res)
	require.Nil(t, b)
	e.Exit()

	for range 2 { // every later scrape too
		code, body := scrape(t, reg)
		require.Equal(t, http.StatusOK, code, body)
		assert.True(t, utf8.ValidString(body))
	}
	v, ok := value(t, reg, "sentinel_origin_concurrent_calls", "resource", res, "origin", `ab\xff`)
	assert.True(t, ok, "the origin is shown, escaped")
	assert.Zero(t, v)
}

func TestNonUTF8PathDoesNotBreakTheScrape(t *testing.T) {
	reg, _ := newRegistry(t)
	h := nethttp.Middleware(nethttp.WithUnmatchedPath(), nethttp.WithOriginParser(nethttp.OriginFromHeader("X-Origin")))(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	req := httptest.NewRequest(http.MethodGet, "/metrics-hostile/x%ff%0a", nil)
	req.Header.Set("X-Origin", "\xfe\xfe")
	h.ServeHTTP(httptest.NewRecorder(), req)

	code, body := scrape(t, reg)
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, `resource="/metrics-hostile/x\\xff\\n"`, "escaped, one line")
}

func TestLabelsThatSanitiseAlikeDoNotCollide(t *testing.T) {
	clocktest.Install(t)
	reg, _ := newRegistry(t, metrics.WithOrigins(10))
	ctx := runtime.EnterContext(context.Background(), "metrics_twins", "o\xff")
	for _, res := range []string{"metrics.twin\xff", `metrics.twin\xff`} {
		e, b := runtime.Entry(ctx, res)
		require.Nil(t, b)
		e.Exit()
	}
	ctx = runtime.EnterContext(context.Background(), "metrics_twins", `o\xff`)
	e, b := runtime.Entry(ctx, "metrics.twin\xff")
	require.Nil(t, b)
	e.Exit()

	code, body := scrape(t, reg)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, 1, strings.Count(body, `sentinel_resource_pass_total{resource="metrics.twin\\xff"}`))
}

func TestLongLabelsAreCapped(t *testing.T) {
	reg, _ := newRegistry(t)
	long := "metrics.long." + strings.Repeat("a", 3000) // a name the runtime keeps
	e, b := runtime.Entry(context.Background(), long)
	require.Nil(t, b)
	e.Exit()
	code, body := scrape(t, reg)
	require.Equal(t, http.StatusOK, code)
	assert.NotContains(t, body, long, "not repeated in full on every series")
	assert.Regexp(t, `resource="metrics\.long\.a{200,}…#[0-9a-f]{8}"`, body)
}

// FuzzMiddlewareThenScrape sends arbitrary paths, origins and header bytes
// through the middleware and scrapes: the scrape always answers 200 with
// valid UTF-8.
func FuzzMiddlewareThenScrape(f *testing.F) {
	f.Add("/x%ff", "ab\xff", "v")
	f.Add("/%00/%0d%0a", "\u202e", "\x00\x01")
	f.Add("/"+strings.Repeat("%fe", 300), strings.Repeat("\xc3", 600), "")
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector(metrics.WithOrigins(5)))
	h := nethttp.Middleware(nethttp.WithUnmatchedPath(), nethttp.WithMethodPrefix(),
		nethttp.WithOriginParser(nethttp.OriginFromHeader("X-Origin")))(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	f.Fuzz(func(t *testing.T, path, origin, header string) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL.Path = "/" + path
		req.URL.RawPath = ""
		req.Header["X-Origin"] = []string{origin}
		req.Header["X-Other"] = []string{header}
		h.ServeHTTP(httptest.NewRecorder(), req)
		code, body := scrape(t, reg)
		if code != http.StatusOK || !utf8.ValidString(body) {
			t.Fatalf("scrape: %d %q", code, body)
		}
	})
}
