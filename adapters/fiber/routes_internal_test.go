package sentinelfiber

import (
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
)

// The index's matchers agree with fiber's own on every pattern and path
// here, in each routing configuration.
func TestMatchersAgreeWithFiber(t *testing.T) {
	patterns := []string{
		"/", "/api", "/api/", "/api/order", "/api/order/:id", "/api/order/:id/items",
		"/api/:kind/:id", "/api/order/:id?", "/files/*", "/files/+", "/*", "/API/Order/:id",
		"/api/order/:id<int>", "/flights/:from-:to", "/a/*/b", "/shop/:item.:format",
	}
	paths := []string{
		"/", "", "/api", "/api/", "/api/order", "/api/order/", "/api/order/42", "/api/order/42/",
		"/api/order/42/items", "/api/order/42/other", "/api/order//items", "/API/ORDER/42",
		"/api/x/1", "/api/x", "/files", "/files/", "/files/a", "/files/a/b", "/flights/LAX-JFK",
		"/a/x/b", "/shop/hat.json", "/api/order/abc", "//api",
	}
	for _, cfg := range []fiber.Config{{}, {CaseSensitive: true}, {StrictRouting: true}, {CaseSensitive: true, StrictRouting: true}} {
		for _, p := range patterns {
			m := compile(p, cfg)
			for _, path := range paths {
				// fiber's router trims a path's trailing slashes when routing is
				// not strict; RoutePatternMatch leaves that to its caller.
				assert.Equal(t, fiber.RoutePatternMatch(routedPath(path, cfg), p, cfg), m(path),
					"pattern %q path %q case-sensitive %v strict %v", p, path, cfg.CaseSensitive, cfg.StrictRouting)
			}
		}
	}
}
