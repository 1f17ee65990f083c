package compare

import (
	"context"
	"net/http"
	"testing"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/client"
	"github.com/cloudwego/hertz/pkg/app/server"
	"github.com/cloudwego/hertz/pkg/protocol"

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

// hertzClientAdapters are client middleware, around an endpoint that
// answers without sending.
var hertzClientAdapters = []adapter[client.Middleware]{{impl: "ours", middleware: func() client.Middleware { return sentinelhertz.ClientMiddleware() }, resource: "GET:" + hertzClientURL}}

const hertzClientURL = "http://127.0.0.1:8888" + routePath

func BenchmarkHertzClient(b *testing.B) {
	send := func(ctx context.Context, req *protocol.Request, resp *protocol.Response) error {
		resp.SetStatusCode(http.StatusOK)
		return nil
	}
	serve := func(mw client.Middleware) func() int {
		ep := mw(send)
		req, resp := protocol.AcquireRequest(), protocol.AcquireResponse()
		req.SetRequestURI(hertzClientURL)
		req.Header.SetMethod(http.MethodGet)
		return func() int {
			if ep(context.Background(), req, resp) != nil {
				return rpcError
			}
			return rpcOK
		}
	}
	noop := func(next client.Endpoint) client.Endpoint {
		return func(ctx context.Context, req *protocol.Request, resp *protocol.Response) error {
			return next(ctx, req, resp)
		}
	}
	benchFramework(b, serve, noop, rpcOK, rpcError, hertzClientAdapters)
}
