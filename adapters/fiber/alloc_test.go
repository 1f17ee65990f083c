package sentinelfiber_test

import (
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
	"github.com/valyala/fasthttp"

	sentinelfiber "github.com/sentinelgen/sentinelgen/adapters/fiber"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The adapter adds one allocation to an admitted request (the entry) and
// one to a refused one (the entry), whose default answer fasthttp copies
// into the response's own buffers, pooled.
func TestAllocations(t *testing.T) {
	got := webtest.MeasureAllocs(t, "/alloc/refused/:id", func(protected bool, path string) func() int {
		app := fiber.New(fiber.Config{DisableStartupMessage: true})
		if protected {
			app.Use(sentinelfiber.Middleware())
		}
		ok := func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) }
		app.Get("/alloc/admitted/:id", ok)
		app.Get("/alloc/refused/:id", ok)
		h := app.Handler()
		ctx := &fasthttp.RequestCtx{}
		ctx.Request.Header.SetMethod(fiber.MethodGet)
		ctx.Request.SetRequestURI(path)
		return func() int {
			ctx.Response.Reset()
			h(ctx)
			return ctx.Response.StatusCode()
		}
	})
	assert.Equal(t, webtest.RouteAllocs{Bare: 0, Admitted: 1, Refused: 1}, got)
}
