package compare

import (
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	sentinelfiber "github.com/sentinelgen/sentinelgen/adapters/fiber"
)

var fiberAdapters = []adapter[fiber.Handler]{{impl: "ours", middleware: func() fiber.Handler { return sentinelfiber.Middleware() }, resource: colonRoute}}

// BenchmarkFiber serves a fasthttp request context from app.Use's
// middleware.
func BenchmarkFiber(b *testing.B) {
	serve := func(mw fiber.Handler) func() int {
		app := fiber.New(fiber.Config{DisableStartupMessage: true})
		app.Use(mw)
		app.Get(colonRoute, func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) })
		h := app.Handler()
		ctx := &fasthttp.RequestCtx{}
		ctx.Request.Header.SetMethod(fiber.MethodGet)
		ctx.Request.SetRequestURI(routePath)
		return func() int {
			ctx.Response.Reset()
			h(ctx)
			return ctx.Response.StatusCode()
		}
	}
	noop := func(c *fiber.Ctx) error { return c.Next() }
	benchFramework(b, serve, noop, fiber.StatusOK, fiber.StatusTooManyRequests, fiberAdapters)
}
