package sentinelgozero_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/zeromicro/go-zero/rest"
	"github.com/zeromicro/go-zero/rest/router"

	sentinelgozero "github.com/sentinelgen/sentinelgen/adapters/gozero"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// go-zero's router bare, with a middleware that does nothing, and with the
// adapter, serving one route to a recorder, the route's chain built as
// go-zero's server builds it: the adapter's cost is the difference between
// the last two.
func BenchmarkGoZero(b *testing.B) {
	for _, bc := range []struct {
		name string
		mw   rest.Middleware
	}{
		{"bare", nil},
		{"noop", func(next http.HandlerFunc) http.HandlerFunc { return next }},
		{"sentinelgozero", sentinelgozero.Middleware()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var h http.HandlerFunc = func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }
			if bc.mw != nil {
				h = bc.mw(h)
			}
			rt := router.NewRouter()
			if err := rt.Handle(http.MethodGet, "/bench/order/:id", h); err != nil {
				b.Fatal(err)
			}
			w := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/bench/order/42", nil)
			rt.ServeHTTP(w, req)
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				rt.ServeHTTP(w, req)
			}
			stop()
		})
	}
}

// BenchmarkEntryExit is a plain runtime.Entry and Exit, in this binary:
// the yardstick the adapter's cost over the framework is read against.
func BenchmarkEntryExit(b *testing.B) { webtest.BenchEntryExit(b) }

// BenchmarkGoZeroRefused is BenchmarkGoZero's adapter case with a flow
// rule that refuses every request, answered by default.
func BenchmarkGoZeroRefused(b *testing.B) {
	webtest.Refuse(b, "/bench/order/:id")
	rt := router.NewRouter()
	h := sentinelgozero.Middleware()(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	if err := rt.Handle(http.MethodGet, "/bench/order/:id", h); err != nil {
		b.Fatal(err)
	}
	webtest.BenchRefused(b, webtest.ServeHTTP(rt, "/bench/order/42"))
}
