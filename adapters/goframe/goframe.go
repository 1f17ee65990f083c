// Package sentinelgoframe protects GoFrame (github.com/gogf/gf/v2) HTTP
// routes with the sentinelgen runtime, with the semantics of
// runtime/nethttp's Middleware (Spring's SentinelWebInterceptor):
//
//	s := g.Server()
//	s.Group("/api", func(group *ghttp.RouterGroup) {
//		group.Middleware(sentinelgoframe.Middleware())
//		group.GET("/order/:id", getOrder) // resource "/api/order/:id"
//	})
//
// or for every route with s.Use(sentinelgoframe.Middleware()). Each request
// is an inbound web resource named after its route's pattern as it was
// registered (the serving handler's Router.Uri), whichever way it was
// registered (BindHandler, a group, an object), without the method:
// nethttp.WithMethodPrefix names it "GET:/api/order/:id". A request no
// route serves follows the nethttp.WithUnmatchedPath policy: not
// protected by default.
//
// A refused request does not reach the handler: it is answered with 429
// Too Many Requests, "Retry-After: 1" and nethttp.BlockMessage (or by
// nethttp.WithBlockHandler or WithBlockPage), and the chain goes no
// further. A handler's error and its panic, which GoFrame keeps in
// r.GetError() (a panic recovered into a 500, an error of a standard
// handler answered as ghttp.MiddlewareHandlerResponse writes it, a 200
// with the error's code), and a response status the
// nethttp.WithErrorStatus predicate holds for (5xx by default) are the
// route's errors, for circuit breakers, unless the client had hung up by
// then: no caller can open a breaker for other callers by hanging up or
// choosing its own deadline.
//
// The handlers see the entry in the request's context, set in place as
// GoFrame's own r.SetCtx sets it, so no copy of the request is made;
// middleware that ran before this one sees its own context again once it
// returns, without context values the handlers added (r.SetCtxVar).
//
// r.Context() carries the entry while the handlers run: pass it to
// generated wrappers and their resources nest under the route in
// runtime.Tree.
//
// Options are runtime/nethttp's (Option is nethttp.Option): the origin
// from a header (nethttp.WithOriginParser(nethttp.OriginFromHeader("S-user"))),
// hot-parameter arguments (nethttp.WithArgs), URL cleaners, the block
// answer and the rest, with the caps nethttp documents. WithServeMux and
// WithRouteName do not apply: GoFrame names the route.
package sentinelgoframe

import (
	"github.com/gogf/gf/v2/net/ghttp"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Option configures Middleware: any runtime/nethttp Option.
type Option = nethttp.Option

// Middleware returns GoFrame middleware that protects every route it runs
// for as an inbound resource named after the route's pattern.
func Middleware(opts ...Option) ghttp.HandlerFunc {
	engine := nethttp.NewEngine(opts...)
	return func(r *ghttp.Request) {
		pattern := ""
		if h := r.GetServeHandler(); h != nil && h.Handler != nil && h.Handler.Router != nil {
			pattern = h.Handler.Router.Uri
		}
		ctx := r.Context() // GoFrame puts r in the context the handlers inherit
		orig := r.Request
		e, ok := engine.EnterEntry(r.Response.BufferWriter, orig, pattern)
		if !ok {
			return // answered; without Next the chain goes no further
		}
		if e == nil {
			r.Middleware.Next()
			return
		}
		// The handlers see the entry in the request's context, set in
		// place as GoFrame's own SetCtx does: no copy of the request.
		// Whatever ran before this middleware sees its context again once
		// it returns.
		r.SetCtx(e.Context())
		done := false
		defer func() {
			r.SetCtx(ctx)
			if !done {
				p := recover() // GoFrame recovers handlers' panics itself: after runtime.Goexit
				engine.Exit(orig, e, 0, p)
				if p != nil {
					panic(p)
				}
			}
		}()
		r.Middleware.Next()
		done = true
		// GoFrame keeps a handler's error, and a panic it recovered, in
		// r.GetError(), whatever it answers: with
		// ghttp.MiddlewareHandlerResponse a failed handler is a 200 whose
		// body holds the error's code.
		if err := r.GetError(); err != nil && !web.ContextEnded(ctx) {
			e.SetError(err)
		}
		engine.Exit(orig, e, r.Response.Status, nil)
	}
}
