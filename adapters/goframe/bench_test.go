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

// BenchmarkEntryExit is a plain runtime.Entry and Exit, in this binary:
// the yardstick the adapter's cost over the framework is read against.
func BenchmarkEntryExit(b *testing.B) { webtest.BenchEntryExit(b) }

// BenchmarkGoFrameRefused is BenchmarkGoFrame's adapter case with a flow
// rule that refuses every request, answered by default, beside GoFrame
// answering 429 itself without the adapter.
func BenchmarkGoFrameRefused(b *testing.B) {
	webtest.Refuse(b, "/bench/refused/:id")
	var srv *ghttp.Server
	serve(b, func(s *ghttp.Server) {
		srv = s
		s.Group("/", func(group *ghttp.RouterGroup) {
			group.GET("/bench/busy/:id", func(r *ghttp.Request) {
				r.Response.WriteHeader(http.StatusTooManyRequests)
				r.Response.Write("busy\n")
			})
			group.Middleware(sentinelgoframe.Middleware())
			group.GET("/bench/refused/:id", func(r *ghttp.Request) { r.Response.WriteHeader(http.StatusOK) })
		})
	})
	for _, path := range []string{"/bench/busy/42", "/bench/refused/42"} {
		b.Run(path[len("/bench/"):len(path)-len("/42")], func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			w := webtest.NewWriter()
			webtest.BenchRefused(b, func() int {
				w.Code = 0
				srv.ServeHTTP(w, req)
				return w.Code
			})
		})
	}
}
