package sentinelchi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	sentinelchi "github.com/sentinelgen/sentinelgen/adapters/chi"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The framework bare, with a middleware that does nothing, and with the
// adapter, serving one route to a recorder: the adapter's cost is the
// difference between the last two.
func BenchmarkChi(b *testing.B) {
	for _, bc := range []struct {
		name string
		mw   []func(http.Handler) http.Handler
	}{
		{"bare", nil},
		{"noop", []func(http.Handler) http.Handler{func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(w, r) })
		}}},
		{"sentinelchi", []func(http.Handler) http.Handler{sentinelchi.Middleware()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := chi.NewRouter()
			r.Use(bc.mw...)
			r.Get("/bench/order/{id}", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
			w := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/bench/order/42", nil)
			r.ServeHTTP(w, req)
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				r.ServeHTTP(w, req)
			}
			stop()
		})
	}
}

// BenchmarkChiRefused is BenchmarkChi's adapter case with a flow rule that
// refuses every request, answered by default: to read against the
// admitted case, which it must not exceed.
func BenchmarkChiRefused(b *testing.B) {
	webtest.Refuse(b, "/bench/order/{id}")
	r := chi.NewRouter()
	r.Use(sentinelchi.Middleware())
	r.Get("/bench/order/{id}", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	webtest.BenchRefused(b, webtest.ServeHTTP(r, "/bench/order/42"))
}

// BenchmarkEntryExit is a plain runtime.Entry and Exit, in this binary:
// the yardstick the adapter's cost over the framework is read against.
func BenchmarkEntryExit(b *testing.B) { webtest.BenchEntryExit(b) }
