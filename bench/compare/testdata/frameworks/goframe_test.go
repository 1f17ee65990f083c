package compare

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gogf/gf/v2/net/ghttp"
	"github.com/gogf/gf/v2/os/glog"

	sentinelgoframe "github.com/sentinelgen/sentinelgen/adapters/goframe"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

var goFrameAdapters = []adapter[ghttp.HandlerFunc]{{impl: "ours", middleware: func() ghttp.HandlerFunc { return sentinelgoframe.Middleware() }, resource: colonRoute}}

// goFrameServers numbers the servers: ghttp.GetServer returns the server
// of a name, started or not.
var goFrameServers int

// BenchmarkGoFrame serves a started server's ServeHTTP (GoFrame binds its
// routes when it starts), the middleware on the route's group.
func BenchmarkGoFrame(b *testing.B) {
	serve := func(mw ghttp.HandlerFunc) func() int {
		goFrameServers++
		s := ghttp.GetServer(fmt.Sprint("compare-", goFrameServers))
		s.SetAddr("127.0.0.1:0")
		s.SetDumpRouterMap(false)
		s.SetAccessLogEnabled(false)
		s.SetErrorLogEnabled(false)
		s.SetLogger(glog.New())
		s.Logger().SetStdoutPrint(false)
		s.SetGraceful(false)
		s.Group("/", func(group *ghttp.RouterGroup) {
			group.Middleware(mw)
			group.GET(colonRoute, func(r *ghttp.Request) { r.Response.WriteHeader(http.StatusOK) })
		})
		if err := s.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Shutdown() })
		// GoFrame closes the request's body: it needs one.
		req := httptest.NewRequest(http.MethodGet, routePath, nil)
		w := webtest.NewWriter()
		return func() int {
			w.Code = 0
			s.ServeHTTP(w, req)
			return w.Code
		}
	}
	noop := func(r *ghttp.Request) { r.Middleware.Next() }
	benchFramework(b, serve, noop, http.StatusOK, http.StatusTooManyRequests, goFrameAdapters)
}
