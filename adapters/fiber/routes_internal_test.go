package sentinelfiber

import (
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
	"github.com/valyala/fasthttp"
)

// From app.Use, the index names the route fiber serves, for every
// pattern and path here, in each routing configuration: parameter
// constraints, optional parameters, wildcards and several parameters in
// a segment included.
func TestTheIndexNamesTheRouteFiberServes(t *testing.T) {
	patterns := []string{
		"/api/order/:id<int>", "/api/order/:id<regex(^[a-f0-9]{4}$)>", "/api/order/:id<minLen(6)>",
		"/", "/api", "/api/", "/api/order", "/api/order/:id", "/api/order/:id/items",
		"/api/:kind/:id", "/api/order/:id?", "/files/*", "/files/+", "/API/Order/:id",
		"/flights/:from-:to", "/a/*/b", "/shop/:item.:format", "/q/:x",
	}
	paths := []string{
		"/", "", "/api", "/api/", "/api/order", "/api/order/", "/api/order/42", "/api/order/42/",
		"/api/order/beef", "/api/order/abcdefgh", "/api/order/abc",
		"/api/order/42/items", "/api/order/42/other", "/api/order//items", "/API/ORDER/42",
		"/api/x/1", "/api/x", "/files", "/files/", "/files/a", "/files/a/b", "/flights/LAX-JFK",
		"/a/x/b", "/shop/hat.json", "//api", "/q/a%3Fb", "/q/%ff", "/q/a%2Fb",
	}
	configs := []fiber.Config{{}, {CaseSensitive: true}, {StrictRouting: true}, {CaseSensitive: true, StrictRouting: true}, {UnescapePath: true}}
	for _, cfg := range configs {
		app := fiber.New(cfg)
		x := &routeIndex{}
		var named string
		app.Use(func(c *fiber.Ctx) error {
			named = x.pattern(c)
			return c.Next()
		})
		for _, p := range patterns {
			app.Get(p, func(c *fiber.Ctx) error { return c.SendString(c.Route().Path) })
		}
		h := app.Handler()
		for _, path := range paths {
			ctx := &fasthttp.RequestCtx{}
			ctx.Request.Header.SetMethod(fiber.MethodGet)
			ctx.Request.SetRequestURI(path)
			h(ctx)
			served := ""
			if ctx.Response.StatusCode() == fiber.StatusOK {
				served = string(ctx.Response.Body())
			}
			assert.Equal(t, served, named, "path %q case-sensitive %v strict %v unescape %v",
				path, cfg.CaseSensitive, cfg.StrictRouting, cfg.UnescapePath)
		}
	}
}
