package sentinelfiber

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// Option configures Middleware. The options are runtime/nethttp's, taking
// a *fiber.Ctx where nethttp's take an *http.Request.
type Option func(*config)

// config is the shared option set of the adapters that take a
// framework's own request type (internal/web).
type config = web.Options[*fiber.Ctx, blockFunc]

// blockFunc is the type of WithBlockHandler's handler.
type blockFunc = func(c *fiber.Ctx, b *runtime.BlockError) error

// WithURLCleaner rewrites the resource name (Spring's UrlCleaner), for
// example to fold path segments that carry IDs into one resource. It
// receives the route's pattern ("/api/order/:id"), or the path of an
// unmatched request with WithUnmatchedPath; the method prefix, where one
// applies, is added to what it returns. Returning "" leaves the request
// unprotected. What it returns must stay valid after the handler returns.
func WithURLCleaner(clean func(c *fiber.Ctx, resource string) string) Option {
	return Option(web.URLCleaner[*fiber.Ctx, blockFunc](clean))
}

// WithArgs passes arguments to hot-parameter rules on the resource; fn is
// called only when such a rule applies to it. Copy what it takes from c
// (strings.Clone, c.Params(name, "") with fiber's Immutable setting): the
// rule keeps the values it counts.
func WithArgs(fn func(c *fiber.Ctx) []any) Option {
	return Option(web.Args[*fiber.Ctx, blockFunc](fn))
}

// WithErrorStatus sets which response statuses are the route's errors,
// for error-ratio and error-count breakers; nethttp.ServerError (5xx) by
// default, nil for none.
func WithErrorStatus(isError func(code int) bool) Option {
	return Option(web.ErrorStatus[*fiber.Ctx, blockFunc](isError))
}

// WithMethodPrefix names resources "GET:/api/order/:id" (Spring's
// http-method-specify); methods other than RFC 9110's and PATCH are named
// "OTHER", since clients choose them.
func WithMethodPrefix() Option {
	return Option(web.MethodPrefix[*fiber.Ctx, blockFunc]())
}

// WithWebContextUnify(false) enters each request in a Sentinel context
// named after its resource instead of nethttp.ContextName (Spring's
// web-context-unify=false), so chain rules can name a route.
func WithWebContextUnify(unify bool) Option {
	return Option(web.WebContextUnify[*fiber.Ctx, blockFunc](unify))
}

// WithUnmatchedPath protects requests that no route matches under their
// path. Paths are the client's choice: the runtime bounds the resources
// they make (see runtime/nethttp), but pair it with a cleaner that folds
// them into few names.
func WithUnmatchedPath() Option {
	return Option(web.UnmatchedPath[*fiber.Ctx, blockFunc]())
}

// WithOriginParser sets how the caller's origin is read (Sentinel's
// RequestOriginParser), for authority rules, limitApp and per-origin
// statistics. The origin must stay valid after the handler returns.
func WithOriginParser(parse func(c *fiber.Ctx) string) Option {
	return Option(web.OriginParser[*fiber.Ctx, blockFunc](parse))
}

// OriginFromHeader returns an origin parser that reads the named request
// header (a copy of it).
func OriginFromHeader(name string) func(c *fiber.Ctx) string {
	return func(c *fiber.Ctx) string { return strings.Clone(c.Get(name)) }
}

// WithBlockHandler answers refused requests (Spring's
// BlockExceptionHandler) instead of DefaultBlockHandler.
func WithBlockHandler(h func(c *fiber.Ctx, b *runtime.BlockError) error) Option {
	return Option(web.BlockHandler[*fiber.Ctx, blockFunc](h))
}
