package compare

import (
	"context"
	"net/http"
	"testing"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/server"

	sentinelhertz "github.com/sentinelgen/sentinelgen/adapters/hertz"
)

var hertzAdapters = []adapter[app.HandlerFunc]{{impl: "ours", middleware: func() app.HandlerFunc { return sentinelhertz.Middleware() }, resource: colonRoute}}

// BenchmarkHertz serves one route from a reused request context, as
// Hertz's server does.
func BenchmarkHertz(b *testing.B) {
	serve := func(mw app.HandlerFunc) func() int {
		h := server.New(server.WithDisablePrintRoute(true))
		h.Use(mw)
		h.GET(colonRoute, func(ctx context.Context, c *app.RequestContext) { c.Status(http.StatusOK) })
		if err := h.Init(); err != nil {
			b.Fatal(err)
		}
		c := h.NewContext()
		return func() int {
			c.ResetWithoutConn()
			c.Request.SetRequestURI(routePath)
			c.Request.Header.SetMethod(http.MethodGet)
			h.ServeHTTP(context.Background(), c)
			return c.Response.StatusCode()
		}
	}
	noop := func(ctx context.Context, c *app.RequestContext) { c.Next(ctx) }
	benchFramework(b, serve, noop, http.StatusOK, http.StatusTooManyRequests, hertzAdapters)
}
