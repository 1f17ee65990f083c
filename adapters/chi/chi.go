// Package sentinelchi protects chi (v5) routes with the sentinelgen
// runtime: runtime/nethttp's Middleware, naming each request after its chi
// route pattern (Spring's SentinelWebInterceptor):
//
//	r := chi.NewRouter()
//	r.Use(middleware.Recoverer, sentinelchi.Middleware())
//	r.Get("/api/order/{id}", getOrder) // resource "/api/order/{id}"
//
// Each request is an inbound web resource named after the full pattern of
// the route that serves it, across mounted sub-routers
// ("/api/order/{id}" for "/order/{id}" mounted on "/api"), without the
// method: WithMethodPrefix names it "GET:/api/order/{id}". Middleware
// registered with r.Use on a chi router runs before the router has routed
// the request, so it asks the router (chi's Routes.Find) which pattern
// will serve it, with a pooled routing context: the routing runs twice,
// as for nethttp's Middleware wrapping a ServeMux. Register it on the
// top-level router, or inline (r.With). Requests no route matches (404,
// 405) follow the WithUnmatchedPath policy: not protected by default.
//
// Everything else is nethttp's Middleware: refused requests get 429 Too
// Many Requests with "Retry-After: 1" (or the block handler, or the block
// page), panics and 5xx answers are the route's errors unless the client
// had hung up by then, the request's context carries the entry so
// generated wrappers called with r.Context() nest under the route, and
// every nethttp Option applies (Option is nethttp.Option; WithRouteName
// replaces the chi pattern, WithServeMux does not apply).
package sentinelchi

import (
	"net/http"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Option configures Middleware: any runtime/nethttp Option.
type Option = nethttp.Option

// Middleware returns chi middleware that protects every request it sees as
// an inbound resource named after the chi route pattern that serves it.
func Middleware(opts ...Option) func(http.Handler) http.Handler {
	return nethttp.Middleware(append([]Option{nethttp.WithRouteName(RoutePattern)}, opts...)...)
}

// findContexts are routing contexts for Routes.Find, which writes into
// the one it is given: the request's own must stay as chi left it.
var findContexts = sync.Pool{New: func() any { return chi.NewRouteContext() }}

// RoutePattern returns the full pattern of the chi route that serves r,
// "" when none does or r is not being served by a chi router. It is the
// route-name function Middleware passes to nethttp.WithRouteName.
func RoutePattern(r *http.Request) string {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil || rctx.Routes == nil {
		return ""
	}
	// rctx.Routes is the top-level router; a routing path set before it
	// routed (middleware that rewrites it) is what it routes by.
	path := rctx.RoutePath
	if path == "" || len(rctx.RoutePatterns) > 0 {
		path = r.URL.RawPath
		if path == "" {
			path = r.URL.Path
		}
	}
	method := rctx.RouteMethod
	if method == "" {
		method = r.Method
	}
	find := findContexts.Get().(*chi.Context)
	find.Reset()
	pattern := rctx.Routes.Find(find, method, path)
	findContexts.Put(find)
	return pattern
}
