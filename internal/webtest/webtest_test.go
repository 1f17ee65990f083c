package webtest_test

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// The suite holds for runtime/nethttp itself, whose semantics the
// adapters share.
func TestNetHTTP(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		mux := nethttp.NewServeMux()
		mux.HandleFunc("GET /api/order/{id}", func(w http.ResponseWriter, r *http.Request) {
			code, body := webtest.Order(r.Context(), r.PathValue("id"))
			w.WriteHeader(code)
			_, _ = io.WriteString(w, body)
		})
		mux.HandleFunc("GET /api/other", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "other") })
		srv := httptest.NewUnstartedServer(mux)
		srv.Config.ErrorLog = log.New(io.Discard, "", 0) // panics are expected
		srv.Start()
		t.Cleanup(srv.Close)
		return webtest.Server{URL: srv.URL, Resource: "/api/order/{id}", Other: "/api/other", HangUpsEndContext: true}
	})
}
