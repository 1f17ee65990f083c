package sentinelfiber_test

import (
	"fmt"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	sentinelfiber "github.com/sentinelgen/sentinelgen/adapters/fiber"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The framework bare, with a middleware that does nothing, and with the
// adapter (from app.Use, finding the route, and on the route), serving
// one route to a fasthttp request context: the adapter's cost is the
// difference to the no-op middleware.
func BenchmarkFiber(b *testing.B) {
	handler := func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) }
	for _, bc := range []struct {
		name  string
		use   []any
		route []fiber.Handler
	}{
		{name: "bare"},
		{name: "noop", use: []any{func(c *fiber.Ctx) error { return c.Next() }}},
		{name: "sentinelfiber-use", use: []any{sentinelfiber.Middleware()}},
		{name: "sentinelfiber-route", route: []fiber.Handler{sentinelfiber.Middleware()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			app := fiber.New(fiber.Config{DisableStartupMessage: true})
			if bc.use != nil {
				app.Use(bc.use...)
			}
			app.Get("/bench/other/:id", handler)
			app.Get("/bench/order/:id", append(bc.route, handler)...)
			serveGets(b, app.Handler(), "/bench/order/42")
		})
	}
}

// BenchmarkFiberRefused is BenchmarkFiber's adapter case (from app.Use)
// with a flow rule that refuses every request, answered by default: to
// read against the admitted case, which it must not exceed.
func BenchmarkFiberRefused(b *testing.B) {
	webtest.Refuse(b, "/bench/order/:id")
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(sentinelfiber.Middleware())
	app.Get("/bench/order/:id", func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) })
	h := app.Handler()
	ctx := &fasthttp.RequestCtx{}
	ctx.Request.Header.SetMethod(fiber.MethodGet)
	ctx.Request.SetRequestURI("/bench/order/42")
	webtest.BenchRefused(b, func() int {
		ctx.Response.Reset()
		h(ctx)
		return ctx.Response.StatusCode()
	})
}

// constrainedApp is an app with 50 routes whose parameters have
// constraints, half regular expressions and half types, and next, if
// any, registered with Use before them.
func constrainedApp(next ...any) fasthttp.RequestHandler {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	if next != nil {
		app.Use(next...)
	}
	handler := func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) }
	for i := range 25 {
		app.Get(fmt.Sprintf("/api/v%d/orders/:id<regex(^[a-f0-9]{8}-[a-f0-9]{4}$)>", i), handler)
		app.Get(fmt.Sprintf("/api/v%d/items/:id<int;min(1)>", i), handler)
	}
	return app.Handler()
}

// A request no route matches, under 50 routes with parameter
// constraints: fiber bare, with a no-op middleware, and with the adapter
// from app.Use, which finds the route itself. The adapter's lookup
// re-parsed every route and compiled its constraints on each request
// (milliseconds); it now costs about what fiber's routing costs.
func BenchmarkFiberUnmatchedUnderConstrainedRoutes(b *testing.B) {
	for _, bc := range []struct {
		name string
		use  []any
	}{
		{name: "bare"},
		{name: "noop", use: []any{func(c *fiber.Ctx) error { return c.Next() }}},
		{name: "sentinelfiber-use", use: []any{sentinelfiber.Middleware()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			serveGets(b, constrainedApp(bc.use...), "/api/v24/orders/not-an-order")
		})
	}
}

// serveGets serves GET target through h, b.N times, reporting
// allocations and CPU time per request.
func serveGets(b *testing.B, h fasthttp.RequestHandler, target string) {
	ctx := &fasthttp.RequestCtx{}
	ctx.Request.Header.SetMethod(fiber.MethodGet)
	ctx.Request.SetRequestURI(target)
	h(ctx)
	b.ReportAllocs()
	stop := webtest.CPUTimer(b)
	for b.Loop() {
		h(ctx)
	}
	stop()
}

// BenchmarkEntryExit is a plain runtime.Entry and Exit, in this binary:
// the yardstick the adapter's cost over the framework is read against.
func BenchmarkEntryExit(b *testing.B) { webtest.BenchEntryExit(b) }
