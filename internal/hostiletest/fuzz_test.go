// Package hostiletest sends what an attacker controls (origins, URL paths,
// header bytes) through the HTTP middleware and checks that the runtime's
// observers keep working: the metrics endpoint answers 200 with a valid
// exposition, and the dashboard's JSON stays valid. It is its own test
// binary because it fills the runtime's tables.
package hostiletest

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/metrics"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

func FuzzMiddlewareThenScrape(f *testing.F) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	f.Add("appA", "/x", []byte("v"))
	f.Add("ab\xff", "/x%ff", []byte("\xff\xfe"))
	f.Add("a\nlevel=ERROR", "/\u2028/..%2f", []byte("\x00\x01"))
	f.Add(string(make([]byte, 300<<10)), "/long", []byte{})
	f.Add("\xc2", "/%c2", []byte("\r\n"))

	mux := http.NewServeMux()
	mux.HandleFunc("/x", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/api/{id}", func(http.ResponseWriter, *http.Request) {})
	handler := nethttp.Middleware(
		nethttp.WithServeMux(mux),
		nethttp.WithUnmatchedPath(),
		nethttp.WithMethodPrefix(),
		nethttp.WithOriginParser(nethttp.OriginFromHeader("X-Caller")),
	)(mux)

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(metrics.NewCollector(metrics.WithOrigins(1000)))
	scrape := promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError})

	f.Fuzz(func(t *testing.T, origin, path string, header []byte) {
		req := httptest.NewRequest("GET", "/", nil)
		req.URL = &url.URL{Path: path, RawPath: path}
		req.Header["X-Caller"] = []string{origin}
		req.Header["X-Other"] = []string{string(header)}
		handler.ServeHTTP(httptest.NewRecorder(), req)

		w := httptest.NewRecorder()
		scrape.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
		body, _ := io.ReadAll(w.Result().Body)
		require.Equal(t, http.StatusOK, w.Code, "the metrics endpoint keeps answering: %s", body)
		require.True(t, utf8.Valid(body))

		tree, err := json.Marshal(runtime.Tree())
		require.NoError(t, err)
		require.True(t, utf8.Valid(tree))
	})
}
