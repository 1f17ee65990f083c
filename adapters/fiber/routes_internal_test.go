package sentinelfiber

import (
	"fmt"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// servedAndNamed serves target through h, an app whose routes answer
// with their path after a middleware from app.Use noted what the index
// named: what fiber served ("" for none) and what the index named.
func servedAndNamed(h fasthttp.RequestHandler, named *string, method, target string) (served, name string) {
	ctx := &fasthttp.RequestCtx{}
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(target)
	*named = "(not reached)"
	h(ctx)
	if ctx.Response.StatusCode() == fiber.StatusOK {
		served = string(ctx.Response.Body())
	}
	return served, *named
}

// indexedApp is an app of patterns under cfg, with a middleware from
// app.Use that writes what the index names to *named.
func indexedApp(cfg fiber.Config, patterns []string, named *string) fasthttp.RequestHandler {
	app := fiber.New(cfg)
	x := &routeIndex{}
	app.Use(func(c *fiber.Ctx) error {
		*named = x.pattern(c)
		return c.Next()
	})
	for _, p := range patterns {
		app.Get(p, func(c *fiber.Ctx) error { return c.SendString(c.Route().Path) })
	}
	return app.Handler()
}

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
		var named string
		h := indexedApp(cfg, patterns, &named)
		for range 2 { // the second time, from what the index remembers
			for _, path := range paths {
				served, name := servedAndNamed(h, &named, fiber.MethodGet, path)
				assert.Equal(t, served, name, "path %q case-sensitive %v strict %v unescape %v",
					path, cfg.CaseSensitive, cfg.StrictRouting, cfg.UnescapePath)
			}
		}
	}
}

// The index remembers what it found for a request in a slot that later
// requests take over: more paths than slots, each asked twice, are all
// named as fiber serves them.
func TestTheIndexNamesRoutesRightWhenItForgets(t *testing.T) {
	var named string
	h := indexedApp(fiber.Config{}, []string{"/api/order/:id<int>", "/api/order/:id", "/api/:kind/:id"}, &named)
	for range 2 {
		for i := range 3 * memoSlots {
			for _, path := range []string{fmt.Sprintf("/api/order/%d", i), fmt.Sprintf("/api/order/x%d", i), fmt.Sprintf("/api/k%d/1", i)} {
				served, name := servedAndNamed(h, &named, fiber.MethodGet, path)
				require.Equal(t, served, name, path)
			}
		}
	}
}

// FuzzIndexNamesTheRouteFiberServes: whatever path a caller sends, the
// index names the route fiber serves it with, or none when fiber serves
// none.
func FuzzIndexNamesTheRouteFiberServes(f *testing.F) {
	for _, seed := range []string{"/api/order/42", "/api/order/beef", "/API/ORDER/", "/files/a/b", "/q/%ff", "//", "/flights/a-b-c", "/shop/a.b.c", "*", "http://h/api"} {
		f.Add(seed, false)
	}
	patterns := []string{
		"/api/order/:id<int>", "/api/order/:id<regex(^[a-f0-9]{4}$)>", "/api/order/:id<minLen(6);alpha>",
		"/api/order/:id?", "/api/:kind/:id", "/files/+", "/flights/:from-:to", "/a/*/b", "/shop/:item.:format", "/q/:x",
	}
	var named, strictNamed string
	plain := indexedApp(fiber.Config{UnescapePath: true}, patterns, &named)
	strict := indexedApp(fiber.Config{CaseSensitive: true, StrictRouting: true}, patterns, &strictNamed)
	f.Fuzz(func(t *testing.T, target string, strictRouting bool) {
		h, n := plain, &named
		if strictRouting {
			h, n = strict, &strictNamed
		}
		served, name := servedAndNamed(h, n, fiber.MethodGet, target)
		if name == "(not reached)" {
			return // fiber answered before any middleware (a request it cannot route)
		}
		require.Equal(t, served, name, "target %q", target)
	})
}
