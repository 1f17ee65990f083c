// Package sentinelecho protects echo (v4) routes with the sentinelgen
// runtime, with the semantics of runtime/nethttp's Middleware (Spring's
// SentinelWebInterceptor):
//
//	e := echo.New()
//	e.Use(middleware.Recover(), sentinelecho.Middleware())
//	e.GET("/api/order/:id", getOrder) // resource "/api/order/:id"
//
// Each request is an inbound web resource named after its route as echo
// writes it (c.Path()), without the method: WithMethodPrefix names it
// "GET:/api/order/:id". Requests no route matched (echo's NotFoundHandler
// and MethodNotAllowedHandler) follow the WithUnmatchedPath policy: not
// protected by default. Register it with e.Use, which runs after routing;
// under e.Pre no route is known yet.
//
// A refused request does not reach the handler: it is answered with 429
// Too Many Requests, "Retry-After: 1" and nethttp.BlockMessage (or by
// WithBlockHandler, or WithBlockPage's redirect). What the handler did is
// the route's error, for circuit breakers: a panic (a *nethttp.PanicError,
// then let go on to middleware.Recover, registered before this one) and a
// response status the WithErrorStatus predicate holds for (5xx by default,
// a *nethttp.StatusError). The status is the response's once written;
// for an error the handler returns without answering it is the one echo's
// default error handler answers with: an *echo.HTTPError's code, else 500.
// None of it counts once the client has hung up: no caller can open a
// breaker for other callers by hanging up or choosing its own deadline.
//
// c.Request() carries the entry in its context: pass c.Request().Context()
// to generated wrappers and their resources nest under the route in
// runtime.Tree.
//
// Options are runtime/nethttp's (Option is nethttp.Option): the origin
// from a header (WithOriginParser(nethttp.OriginFromHeader("S-user"))),
// hot-parameter arguments from the request (WithArgs, called only when a
// rule reads them), URL cleaners, WithWebContextUnify and the rest, with
// the caps nethttp documents. WithServeMux and WithRouteName do not apply:
// echo names the route.
package sentinelecho

import (
	"errors"
	"net/http"
	"unsafe"

	"github.com/labstack/echo/v4"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Option configures Middleware: any runtime/nethttp Option.
type Option = nethttp.Option

// Middleware returns echo middleware that protects every route it runs for
// as an inbound resource named after the route's pattern.
func Middleware(opts ...Option) echo.MiddlewareFunc {
	engine := nethttp.NewEngine(opts...)
	var made web.Wrapped[echo.HandlerFunc]
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		// echo applies the middleware of e.Use to the route's handler on
		// every request: the same handler gets the handler it got before.
		return made.Get(web.HandlerKey{Data: funcValue(next)}, func() echo.HandlerFunc { return protect(engine, next) })
	}
}

// protect is next behind engine.
func protect(engine *nethttp.Engine, next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req, e, ok := engine.Enter(c.Response(), c.Request(), route(c))
		if !ok {
			return nil // refused, and answered
		}
		if e == nil {
			return next(c)
		}
		c.SetRequest(req)
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
		err := next(c)
		done = true
		engine.Exit(req, e, status(c, err), nil)
		return err
	}
}

// route is the pattern of the route that matched c's request, "" when none
// did: echo then still sets a path (the closest node's), with one of the
// handlers it routes unmatched requests to (read each time: a service may
// replace them at start-up).
func route(c echo.Context) string {
	if h := funcValue(c.Handler()); h != nil {
		if h == funcValue(echo.NotFoundHandler) || h == funcValue(echo.MethodNotAllowedHandler) {
			return ""
		}
	}
	return c.Path()
}

// funcValue is the function value f points to. The router hands out the
// unmatched handlers by copying the package's variables, so a request's
// handler is one of them exactly when it points to the same value: one
// comparison, where reflect's code pointers cost a call each.
func funcValue(f echo.HandlerFunc) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&f))
}

// status is the response's status once the handler returned err: what was
// written, or, when nothing was, what echo's default error handler answers
// err with.
func status(c echo.Context, err error) int {
	resp := c.Response()
	if resp.Committed || err == nil {
		return resp.Status
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		if inner, ok := he.Internal.(*echo.HTTPError); ok {
			he = inner
		}
		return he.Code
	}
	return http.StatusInternalServerError
}
