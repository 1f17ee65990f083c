// Package sentinelmux protects gorilla/mux routes with the sentinelgen
// runtime: runtime/nethttp's Middleware, naming each request after its
// route's path template (Spring's SentinelWebInterceptor):
//
//	r := mux.NewRouter()
//	r.Use(sentinelmux.Middleware())
//	r.HandleFunc("/api/order/{id}", getOrder).Methods("GET") // resource "/api/order/{id}"
//
// Each request is an inbound web resource named after the path template
// of the route that matched it, as written ("/api/order/{id:[0-9]+}"
// keeps its pattern), sub-routers' prefixes included, without the method:
// WithMethodPrefix names it "GET:/api/order/{id}". gorilla/mux runs
// middleware only for requests a route matched, so 404s and 405s are not
// protected; a matched route without a path template (host or header
// matchers only) follows the WithUnmatchedPath policy.
//
// Everything else is nethttp's Middleware: refused requests get 429 Too
// Many Requests with "Retry-After: 1" (or the block handler, or the block
// page), panics and 5xx answers are the route's errors unless the client
// had hung up by then, the request's context carries the entry so
// generated wrappers called with r.Context() nest under the route, and
// every nethttp Option applies (Option is nethttp.Option; WithRouteName
// replaces the path template, WithServeMux does not apply).
package sentinelmux

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Option configures Middleware: any runtime/nethttp Option.
type Option = nethttp.Option

// Middleware returns gorilla/mux middleware that protects every request a
// route matched as an inbound resource named after the route's path
// template.
func Middleware(opts ...Option) mux.MiddlewareFunc {
	return nethttp.Middleware(append([]Option{nethttp.WithRouteName(PathTemplate)}, opts...)...)
}

// PathTemplate returns the path template of the route that matched r, ""
// when none did or it has none. It is the route-name function Middleware
// passes to nethttp.WithRouteName.
func PathTemplate(r *http.Request) string {
	route := mux.CurrentRoute(r)
	if route == nil {
		return ""
	}
	t, err := route.GetPathTemplate()
	if err != nil {
		return ""
	}
	return t
}
