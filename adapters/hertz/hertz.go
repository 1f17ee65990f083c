// Package sentinelhertz protects Hertz (github.com/cloudwego/hertz)
// routes and client calls with the sentinelgen runtime, with the semantics
// of runtime/nethttp's Middleware and Transport:
//
//	h := server.Default() // recovery included
//	h.Use(sentinelhertz.Middleware())
//	h.GET("/api/order/:id", getOrder) // resource "/api/order/:id"
//
//	c, _ := client.NewClient()
//	c.Use(sentinelhertz.ClientMiddleware()) // "GET:http://host/api/order/42"
//
// On the server each request is an inbound web resource named after its
// route as Hertz writes it (c.FullPath()), without the method:
// WithMethodPrefix names it "GET:/api/order/:id". Requests no route
// matched (404, 405) follow the WithUnmatchedPath policy: not protected by
// default.
//
// A refused request does not reach the handlers: it is answered with 429
// Too Many Requests, "Retry-After: 1" and nethttp.BlockMessage (or by
// WithBlockHandler), and the chain is aborted. A handler's panic (recorded
// as a *nethttp.PanicError, then let go on to Hertz's recovery middleware,
// which must run before this one) and a response status the
// WithErrorStatus predicate holds for (5xx by default, a
// *nethttp.StatusError) are the route's errors, for circuit breakers,
// unless the handlers' context had ended by then. Hertz tells a handler
// that its client hung up only with server.WithSenseClientDisconnection
// (true); without it, a handler that finishes after its client left is
// counted as it answers.
//
// The handlers' context.Context carries the entry: pass it to generated
// wrappers and their resources nest under the route in runtime.Tree.
//
// Hertz reuses a request's buffers once its handlers return: a URL
// cleaner, origin parser or argument function of your own must return
// strings that stay valid (string(b) copies; unsafe conversions do not).
package sentinelhertz

import (
	"context"
	"sync/atomic"
	"unsafe"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Middleware returns Hertz middleware that protects every request it runs
// for as an inbound resource named after the route that serves it.
func Middleware(opts ...Option) app.HandlerFunc {
	cfg := web.Apply[*app.RequestContext, blockFunc](nethttp.ServerError, opts)
	engine := web.New(cfg.Config)
	// Without a cleaner or method prefix a route's resource is the
	// route's alone: routes keeps it once resolved.
	var routes *routeResources
	if cfg.Cleaner == nil && !cfg.MethodPrefix {
		routes = new(routeResources)
	}
	// Such a resource, without an origin or arguments to read, is
	// entered in the shared web context directly, as the engine would.
	direct := routes != nil && cfg.Origin == nil && !cfg.SeparateContexts && cfg.Args == nil
	return func(ctx context.Context, c *app.RequestContext) {
		pattern := c.FullPath()
		var res *runtime.Resource
		name := ""
		if routes != nil && pattern != "" {
			res = routes.get(pattern)
		}
		if res == nil {
			method, path := "", ""
			if cfg.MethodPrefix {
				method = methodOf(c.Method())
			}
			if pattern == "" && cfg.UnmatchedPath {
				path = string(c.Path()) // a copy: the resource keeps it
			}
			res, name = engine.Target(c, method, pattern, path)
			if res == nil && name == "" {
				c.Next(ctx) // not protected
				return
			}
			if routes != nil && pattern != "" && res != nil {
				routes.put(pattern, res)
			}
		}
		var e *runtime.SentinelEntry
		var b *runtime.BlockError
		if direct && res != nil {
			e, b = engine.EnterShared(ctx, res)
		} else {
			e, b = engine.Enter(ctx, c, res, name)
		}
		if b != nil {
			block(&cfg, ctx, c, b)
			c.Abort()
			return
		}
		done := false
		defer func() {
			if !done {
				p := recover() // nil after runtime.Goexit: the entry just exits
				exit(engine, e, 0, p)
				if p != nil {
					panic(p)
				}
			}
		}()
		c.Next(e.Context())
		done = true
		exit(engine, e, c.Response.StatusCode(), nil)
	}
}

func exit(engine *web.Engine[*app.RequestContext], e *runtime.SentinelEntry, code int, p any) {
	// A response whose status is not an error, the common case, has
	// nothing to record.
	if p != nil || engine.IsErrorStatus(code) {
		if err := engine.Failure(e.Context(), code, p); err != nil {
			e.SetError(err)
		}
	}
	e.Exit()
}

// DefaultBlockHandler answers a refused request with 429 Too Many
// Requests, "Retry-After: 1" and nethttp.BlockMessage. The header key and
// values are bytes built once. The body is copied into the response's own
// buffer, as net/http's is: a body handed over without a copy (SetBodyRaw)
// would be dropped by a later write (c.Write), which Hertz starts in a
// buffer of its own.
func DefaultBlockHandler(_ context.Context, c *app.RequestContext, _ *runtime.BlockError) {
	c.Response.Header.SetCanonical(retryAfterKey, retryAfterValue)
	c.Response.Header.SetContentTypeBytes(textPlain)
	c.Response.SetStatusCode(429)
	c.Response.SetBodyString(blockBody)
}

// The default answer's header bytes; Hertz copies them.
var (
	retryAfterKey   = []byte("Retry-After")
	retryAfterValue = []byte(web.RetryAfter)
	textPlain       = []byte("text/plain; charset=utf-8")
)

const blockBody = web.BlockMessage + "\n"

func block(c *config, ctx context.Context, rc *app.RequestContext, b *runtime.BlockError) {
	if c.BlockHandler != nil {
		c.BlockHandler(ctx, rc, b)
		return
	}
	DefaultBlockHandler(ctx, rc, b)
}

// routeResources holds the resources of recent routes, in slots picked by
// the address of the route's path: Hertz hands every request of a route
// the route's own string (c.FullPath), so a request finds its route's
// resource with one comparison, of that address, instead of the engine's
// lookup by pattern. A slot is taken by the first route that lands in it
// and kept: the slots hold registered routes only, and a route whose slot
// another holds is looked up by the engine, allocating nothing.
type routeResources [routeSlots]atomic.Pointer[routeResource]

type routeResource struct {
	pattern string
	res     *runtime.Resource
}

const routeSlots = 64 // a power of two

func (r *routeResources) slot(pattern string) *atomic.Pointer[routeResource] {
	return &r[uint64(uintptr(unsafe.Pointer(unsafe.StringData(pattern))))*0x9e3779b97f4a7c15>>(64-6)]
}

// get returns the resource kept for pattern, nil when none is.
func (r *routeResources) get(pattern string) *runtime.Resource {
	if rr := r.slot(pattern).Load(); rr != nil && rr.pattern == pattern {
		return rr.res
	}
	return nil
}

// put keeps res, the resource of the route pattern, when pattern's slot
// is free.
func (r *routeResources) put(pattern string, res *runtime.Resource) {
	if s := r.slot(pattern); s.Load() == nil {
		s.CompareAndSwap(nil, &routeResource{pattern: pattern, res: res})
	}
}

// methodOf returns the request method as a string without allocating for
// RFC 9110's methods and PATCH; the engine names any other "OTHER".
func methodOf(m []byte) string {
	for _, known := range methods {
		if string(m) == known {
			return known
		}
	}
	return "OTHER"
}

var methods = [...]string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "CONNECT", "TRACE"}
