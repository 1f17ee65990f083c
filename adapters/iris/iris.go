// Package sentineliris protects Iris (github.com/kataras/iris/v12) routes
// with the sentinelgen runtime, with the semantics of runtime/nethttp's
// Middleware (Spring's SentinelWebInterceptor):
//
//	app := iris.New()
//	app.UseRouter(recover.New())
//	app.Use(sentineliris.Middleware()) // before the routes it protects
//	app.Get("/api/order/{id}", getOrder) // resource "/api/order/{id}"
//
// Each request is an inbound web resource named after its route's path
// template as it was registered (the route's Path(), party prefix
// included, "/api/order/{id:uint64}" when the parameter has a type),
// without the method: nethttp.WithMethodPrefix names it
// "GET:/api/order/{id}". Iris runs app.Use middleware only for requests a
// route matched; from app.UseRouter, which runs before routing, a request
// has no route yet and follows the nethttp.WithUnmatchedPath policy: not
// protected by default.
//
// A refused request does not reach the handler: it is answered with 429
// Too Many Requests, "Retry-After: 1" and nethttp.BlockMessage (or by
// nethttp.WithBlockHandler or WithBlockPage), and the chain is stopped. A
// handler's panic (recorded as a *nethttp.PanicError, then let go on to
// Iris's recover middleware, which must therefore run before this one)
// and a response status the nethttp.WithErrorStatus predicate holds for
// (5xx by default, read from ctx.GetStatusCode()) are the route's errors,
// for circuit breakers, unless the client had hung up by then: no caller
// can open a breaker for other callers by hanging up or choosing its own
// deadline.
//
// ctx.Request() carries the entry in its context while the handlers run:
// pass ctx.Request().Context() to generated wrappers and their resources
// nest under the route in runtime.Tree. Middleware that ran before this
// one sees its own request again once it returns, without context values
// the handlers added to theirs (ctx.Values() are Iris's own and stay).
//
// Options are runtime/nethttp's (Option is nethttp.Option): the origin
// from a header (nethttp.WithOriginParser(nethttp.OriginFromHeader("S-user"))),
// hot-parameter arguments (nethttp.WithArgs), URL cleaners, the block
// answer and the rest, with the caps nethttp documents. WithServeMux and
// WithRouteName do not apply: Iris names the route.
package sentineliris

import (
	"github.com/kataras/iris/v12"

	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Option configures Middleware: any runtime/nethttp Option.
type Option = nethttp.Option

// Middleware returns an Iris handler that protects every route it runs
// for as an inbound resource named after the route's path template.
func Middleware(opts ...Option) iris.Handler {
	engine := nethttp.NewEngine(opts...)
	return func(ctx iris.Context) {
		pattern := ""
		if route := ctx.GetCurrentRoute(); route != nil {
			pattern = route.Path()
		}
		r := ctx.Request()
		req, e, ok := engine.Enter(ctx.ResponseWriter(), r, pattern)
		if !ok {
			ctx.StopExecution()
			return
		}
		if e == nil {
			ctx.Next()
			return
		}
		// The handlers see req; whatever ran before this middleware sees r
		// again once it returns.
		ctx.ResetRequest(req)
		done := false
		defer func() {
			ctx.ResetRequest(r)
			if !done {
				p := recover() // nil after runtime.Goexit: the entry just exits
				engine.Exit(req, e, 0, p)
				if p != nil {
					panic(p)
				}
			}
		}()
		ctx.Next()
		done = true
		engine.Exit(req, e, ctx.GetStatusCode(), nil)
	}
}
