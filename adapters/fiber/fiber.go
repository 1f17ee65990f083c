// Package sentinelfiber protects fiber (v2) routes with the sentinelgen
// runtime, with the semantics of runtime/nethttp's Middleware (Spring's
// SentinelWebInterceptor), on fasthttp:
//
//	app := fiber.New()
//	app.Use(recover.New(), sentinelfiber.Middleware())
//	app.Get("/api/order/:id", getOrder) // resource "/api/order/:id"
//
// Each request is an inbound web resource named after the route that
// serves it as fiber writes it ("/api/order/:id"), without the method:
// WithMethodPrefix names it "GET:/api/order/:id". Registered per route
// (app.Get(path, sentinelfiber.Middleware(), handler)) it reads the route
// from c.Route(). Registered with app.Use it runs before fiber has
// matched the route, so it finds the route itself: the first route after
// it in the method's stack whose path matches the request, by fiber's
// own routing: a router of the adapter's holds the app's routes, parsed
// and their parameter constraints compiled once (rebuilt when routes are
// added), and routes the request's method and path through them. The
// lookup costs what fiber's routing costs, whatever the patterns: a path
// no route matches, under 50 routes with `:id<regex(...)>` and
// `:id<int>` constraints, takes 2.8 µs of CPU against bare fiber's
// 1.3 µs. Requests no route matches follow the WithUnmatchedPath policy:
// not protected by default.
//
// A refused request does not reach the handler: it is answered with 429
// Too Many Requests, "Retry-After: 1" and nethttp.BlockMessage (or by
// WithBlockHandler). What the handler did is the route's error, for
// circuit breakers: a panic (a *nethttp.PanicError, then let go on to
// fiber's recover middleware, registered before this one) and a response
// status the WithErrorStatus predicate holds for (5xx by default, a
// *nethttp.StatusError): the response's, or, for an error the handler
// returns, the one fiber's default error handler answers with (a
// *fiber.Error's code, else 500). A deadline or cancellation of the
// handler's context (c.UserContext()) makes none of it count. fasthttp
// never tells a handler that its client hung up: a handler that finishes
// after its client left is counted as it answers.
//
// c.UserContext() carries the entry: pass it to generated wrappers and
// their resources nest under the route in runtime.Tree.
//
// Values fiber hands out are valid only within the handler (fasthttp
// reuses its buffers): the adapter copies what it keeps (an unmatched
// path, a header's origin); a URL cleaner or origin parser of your own
// must return strings that stay valid, strings.Clone them.
package sentinelfiber

import (
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Middleware returns fiber middleware that protects every request it runs
// for as an inbound resource named after the route that serves it.
func Middleware(opts ...Option) fiber.Handler {
	cfg := web.Apply[*fiber.Ctx, blockFunc](nethttp.ServerError, opts)
	engine := web.New(cfg.Config)
	routes := &routeIndex{}
	// Without a cleaner or method prefix a route's resource is the
	// route's alone: the route's target keeps it once resolved.
	byRoute := cfg.Cleaner == nil && !cfg.MethodPrefix
	// Such a resource, without an origin or arguments to read, is
	// entered in the shared web context directly, as the engine would.
	direct := byRoute && cfg.Origin == nil && !cfg.SeparateContexts && cfg.Args == nil
	return func(c *fiber.Ctx) error {
		t := routes.target(c)
		var res *runtime.Resource
		name := ""
		if byRoute {
			res = t.res.Load()
		}
		if res == nil {
			path := ""
			if t.path == "" && cfg.UnmatchedPath {
				path = strings.Clone(c.Path()) // the resource keeps it; fasthttp reuses its bytes
			}
			res, name = engine.Target(c, c.Method(), t.path, path)
			if res == nil && name == "" {
				return c.Next() // not protected
			}
			if byRoute && res != nil && t != noRoute {
				t.res.Store(res)
			}
		}
		parent := c.UserContext()
		var e *runtime.SentinelEntry
		var b *runtime.BlockError
		if direct && res != nil {
			e, b = engine.EnterShared(parent, res)
		} else {
			e, b = engine.Enter(parent, c, res, name)
		}
		if b != nil {
			return block(&cfg, c, b)
		}
		c.SetUserContext(e.Context())
		done := false
		defer func() {
			if !done {
				p := recover() // nil after runtime.Goexit: the entry just exits
				c.SetUserContext(parent)
				exit(engine, e, 0, p)
				if p != nil {
					panic(p)
				}
			}
		}()
		err := c.Next()
		done = true
		c.SetUserContext(parent) // the handlers before this one see theirs again
		exit(engine, e, status(c, err), nil)
		return err
	}
}

func exit(engine *web.Engine[*fiber.Ctx], e *runtime.SentinelEntry, code int, p any) {
	// A response whose status is not an error, the common case, has
	// nothing to record.
	if p != nil || engine.IsErrorStatus(code) {
		if err := engine.Failure(e.Context(), code, p); err != nil {
			e.SetError(err)
		}
	}
	e.Exit()
}

// status is the response's status once the handlers returned err: fiber
// answers an error after the middleware returns, with its error
// handler, whose default answers a *fiber.Error's code, else 500.
func status(c *fiber.Ctx, err error) int {
	if err == nil {
		return c.Response().StatusCode()
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	return fiber.StatusInternalServerError
}

// DefaultBlockHandler answers a refused request with 429 Too Many
// Requests, "Retry-After: 1" and nethttp.BlockMessage as a plain-text
// body, as nethttp.DefaultBlockHandler does. The header key and values
// are bytes built once. The body is copied into the response's own
// buffer, as net/http's is: a body handed over without a copy (c.Send)
// would be dropped by a later write (c.Write, c.Append), which fasthttp
// starts in a buffer of its own.
func DefaultBlockHandler(c *fiber.Ctx, _ *runtime.BlockError) error {
	h := &c.Response().Header
	h.SetCanonical(retryAfterKey, retryAfterValue)
	h.SetContentTypeBytes(textPlain)
	c.Status(fiber.StatusTooManyRequests)
	c.Response().SetBodyString(blockBody)
	return nil
}

// The default answer's header bytes; fasthttp copies them.
var (
	retryAfterKey   = []byte(fiber.HeaderRetryAfter)
	retryAfterValue = []byte(web.RetryAfter)
	textPlain       = []byte(fiber.MIMETextPlainCharsetUTF8)
)

const blockBody = web.BlockMessage + "\n"

func block(c *config, fc *fiber.Ctx, b *runtime.BlockError) error {
	if c.BlockHandler != nil {
		return c.BlockHandler(fc, b)
	}
	return DefaultBlockHandler(fc, b)
}
