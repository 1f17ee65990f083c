package sentinelgoframe_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gogf/gf/v2/net/ghttp"

	sentinelgoframe "github.com/sentinelgen/sentinelgen/adapters/goframe"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The framework bare, with a middleware that does nothing, and with the
// adapter, serving one route to a recorder (through a started server's
// ServeHTTP: GoFrame binds its routes when it starts): the adapter's cost
// is the difference between the last two.
func BenchmarkGoFrame(b *testing.B) {
	for _, bc := range []struct {
		name string
		mw   []ghttp.HandlerFunc
	}{
		{"bare", nil},
		{"noop", []ghttp.HandlerFunc{func(r *ghttp.Request) { r.Middleware.Next() }}},
		{"sentinelgoframe", []ghttp.HandlerFunc{sentinelgoframe.Middleware()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var srv *ghttp.Server
			serve(b, func(s *ghttp.Server) {
				srv = s
				s.Group("/", func(group *ghttp.RouterGroup) {
					group.Middleware(bc.mw...)
					group.GET("/bench/order/:id", func(r *ghttp.Request) { r.Response.WriteHeader(http.StatusOK) })
				})
			})
			w := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/bench/order/42", nil)
			srv.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d", w.Code)
			}
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				srv.ServeHTTP(w, req)
			}
			stop()
		})
	}
}
