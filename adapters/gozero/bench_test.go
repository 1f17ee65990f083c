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
