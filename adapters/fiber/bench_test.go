package sentinelfiber_test

import (
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
			h := app.Handler()
			ctx := &fasthttp.RequestCtx{}
			ctx.Request.Header.SetMethod(fiber.MethodGet)
			ctx.Request.SetRequestURI("/bench/order/42")
			h(ctx)
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				h(ctx)
			}
			stop()
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
