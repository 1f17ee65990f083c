// Package sentinelgin protects gin routes with the sentinelgen runtime,
// with the semantics of runtime/nethttp's Middleware (Spring's
// SentinelWebInterceptor):
//
//	r := gin.New()
//	r.Use(gin.Recovery(), sentinelgin.Middleware())
//	r.GET("/api/order/:id", getOrder) // resource "/api/order/:id"
//
// Each request is an inbound web resource named after its route as gin
// writes it (c.FullPath()), without the method: WithMethodPrefix names it
// "GET:/api/order/:id". Requests no route matched (404, 405) follow the
// WithUnmatchedPath policy: not protected by default.
//
// A refused request does not reach the handlers: it is answered with 429
// Too Many Requests, "Retry-After: 1" and nethttp.BlockMessage (or by
// WithBlockHandler, or WithBlockPage's redirect), and the chain is
// aborted. A handler's panic (recorded as a *nethttp.PanicError, then let
// go on to gin.Recovery, which must therefore be registered before this
// middleware) and a response status the WithErrorStatus predicate holds
// for (5xx by default, read from c.Writer.Status(), a *nethttp.StatusError)
// are the route's errors, for circuit breakers, unless the client had hung
// up by then: no caller can open a breaker for other callers by hanging up
// or choosing its own deadline.
//
// c.Request carries the entry in its context: pass c.Request.Context() to
// generated wrappers (or c itself, with gin's ContextWithFallback) and
// their resources nest under the route in runtime.Tree.
//
// Options are runtime/nethttp's (Option is nethttp.Option): the origin
// from a header (WithOriginParser(nethttp.OriginFromHeader("S-user"))),
// hot-parameter arguments from the request (WithArgs, called only when a
// rule reads them), URL cleaners, WithWebContextUnify and the rest, with
// the caps nethttp documents. WithServeMux and WithRouteName do not apply:
// gin names the route.
package sentinelgin

import (
	"github.com/gin-gonic/gin"

	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Option configures Middleware: any runtime/nethttp Option.
type Option = nethttp.Option

// Middleware returns gin middleware that protects every route it runs for
// as an inbound resource named after the route's pattern.
func Middleware(opts ...Option) gin.HandlerFunc {
	engine := nethttp.NewEngine(opts...)
	return func(c *gin.Context) {
		req, e, ok := engine.Enter(c.Writer, c.Request, c.FullPath())
		if !ok {
			c.Abort()
			return
		}
		if e == nil {
			c.Next()
			return
		}
		c.Request = req
		done := false
		defer func() {
			if !done {
				p := recover() // nil after runtime.Goexit: the entry just exits
				engine.Exit(req, e, 0, p)
				if p != nil {
					panic(p)
				}
			}
		}()
		c.Next()
		done = true
		engine.Exit(req, e, c.Writer.Status(), nil)
	}
}
