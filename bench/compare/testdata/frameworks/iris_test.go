package compare

import (
	"net/http"
	"testing"

	"github.com/kataras/iris/v12"

	sentineliris "github.com/sentinelgen/sentinelgen/adapters/iris"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

var irisAdapters = []adapter[iris.Handler]{{impl: "ours", middleware: func() iris.Handler { return sentineliris.Middleware() }, resource: braceRoute}}

// BenchmarkIris serves a built application, the middleware from app.Use.
func BenchmarkIris(b *testing.B) {
	serve := func(mw iris.Handler) func() int {
		a := iris.New()
		a.Logger().SetLevel("disable")
		a.Use(mw)
		a.Get(braceRoute, func(ctx iris.Context) { ctx.StatusCode(http.StatusOK) })
		if err := a.Build(); err != nil {
			b.Fatal(err)
		}
		return webtest.ServeHTTP(a, routePath)
	}
	noop := func(ctx iris.Context) { ctx.Next() }
	benchFramework(b, serve, noop, http.StatusOK, http.StatusTooManyRequests, irisAdapters)
}
