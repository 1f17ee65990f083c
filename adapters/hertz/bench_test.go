package sentinelhertz_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/client"
	"github.com/cloudwego/hertz/pkg/app/server"

	sentinelhertz "github.com/sentinelgen/sentinelgen/adapters/hertz"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The framework bare, with a middleware that does nothing, and with the
// adapter, serving one route from a reused request context, as Hertz's
// server does: the adapter's cost is the difference between the last two.
func BenchmarkHertz(b *testing.B) {
	for _, bc := range []struct {
		name string
		mw   []app.HandlerFunc
	}{
		{"bare", nil},
		{"noop", []app.HandlerFunc{func(ctx context.Context, c *app.RequestContext) { c.Next(ctx) }}},
		{"sentinelhertz", []app.HandlerFunc{sentinelhertz.Middleware()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := server.New(server.WithDisablePrintRoute(true))
			h.Use(bc.mw...)
			h.GET("/bench/order/:id", func(ctx context.Context, c *app.RequestContext) { c.Status(http.StatusOK) })
			if err := h.Init(); err != nil {
				b.Fatal(err)
			}
			c := h.NewContext()
			serve := func() {
				c.ResetWithoutConn()
				c.Request.SetRequestURI("/bench/order/42")
				c.Request.Header.SetMethod(http.MethodGet)
				h.ServeHTTP(context.Background(), c)
			}
			serve()
			if c.Response.StatusCode() != http.StatusOK {
				b.Fatalf("status %d", c.Response.StatusCode())
			}
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				serve()
			}
			stop()
		})
	}
}

// BenchmarkEntryExit is a plain runtime.Entry and Exit, in this binary:
// the yardstick the adapter's cost over the framework is read against.
func BenchmarkEntryExit(b *testing.B) { webtest.BenchEntryExit(b) }

// BenchmarkHertzRefused is BenchmarkHertz's adapter case with a flow rule
// that refuses every request, answered by default.
func BenchmarkHertzRefused(b *testing.B) {
	webtest.Refuse(b, "/bench/order/:id")
	h := server.New(server.WithDisablePrintRoute(true))
	h.Use(sentinelhertz.Middleware())
	h.GET("/bench/order/:id", func(ctx context.Context, c *app.RequestContext) { c.Status(http.StatusOK) })
	if err := h.Init(); err != nil {
		b.Fatal(err)
	}
	c := h.NewContext()
	webtest.BenchRefused(b, func() int {
		c.ResetWithoutConn()
		c.Request.SetRequestURI("/bench/order/42")
		c.Request.Header.SetMethod(http.MethodGet)
		h.ServeHTTP(context.Background(), c)
		return c.Response.StatusCode()
	})
}

// A client call through the client middleware to an endpoint that
// answers without sending: bare, admitted, and refused by a flow rule;
// the middleware's cost is the difference to bare.
func BenchmarkHertzClient(b *testing.B) {
	for _, bc := range []struct {
		name string
		mw   client.Middleware
		url  string
	}{
		{"bare", nil, "http://bench.example/order/42"},
		{"sentinelhertz", sentinelhertz.ClientMiddleware(), "http://bench.example/order/42"},
		{"sentinelhertz-refused", sentinelhertz.ClientMiddleware(), "http://bench.example/refused/42"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			webtest.Refuse(b, "GET:http://bench.example/refused/42")
			call := clientCall(bc.mw, bc.url)
			_ = call()
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				_ = call()
			}
			stop()
		})
	}
}
