package sentinelhertz

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// Option configures Middleware. The options are runtime/nethttp's, taking
// an *app.RequestContext where nethttp's take an *http.Request.
type Option func(*config)

// config is the shared option set of the adapters that take a
// framework's own request type (internal/web).
type config = web.Options[*app.RequestContext, blockFunc]

// blockFunc is the type of WithBlockHandler's handler.
type blockFunc = func(ctx context.Context, c *app.RequestContext, b *runtime.BlockError)

// WithURLCleaner rewrites the resource name (Spring's UrlCleaner), for
// example to fold path segments that carry IDs into one resource. It
// receives the route's pattern ("/api/order/:id"), or the path of an
// unmatched request with WithUnmatchedPath; the method prefix, where one
// applies, is added to what it returns. Returning "" leaves the request
// unprotected.
func WithURLCleaner(clean func(c *app.RequestContext, resource string) string) Option {
	return Option(web.URLCleaner[*app.RequestContext, blockFunc](clean))
}

// WithArgs passes arguments to hot-parameter rules on the resource; fn is
// called only when such a rule applies to it. The rule keeps the values it
// counts: copy what fn takes from c (c.Param returns a copy).
func WithArgs(fn func(c *app.RequestContext) []any) Option {
	return Option(web.Args[*app.RequestContext, blockFunc](fn))
}

// WithErrorStatus sets which response statuses are the route's errors,
// for error-ratio and error-count breakers; nethttp.ServerError (5xx) by
// default, nil for none.
func WithErrorStatus(isError func(code int) bool) Option {
	return Option(web.ErrorStatus[*app.RequestContext, blockFunc](isError))
}

// WithMethodPrefix names resources "GET:/api/order/:id" (Spring's
// http-method-specify); methods other than RFC 9110's and PATCH are named
// "OTHER", since clients choose them.
func WithMethodPrefix() Option {
	return Option(web.MethodPrefix[*app.RequestContext, blockFunc]())
}

// WithWebContextUnify(false) enters each request in a Sentinel context
// named after its resource instead of nethttp.ContextName (Spring's
// web-context-unify=false), so chain rules can name a route.
func WithWebContextUnify(unify bool) Option {
	return Option(web.WebContextUnify[*app.RequestContext, blockFunc](unify))
}

// WithUnmatchedPath protects requests that no route matches under their
// path. Paths are the client's choice: the runtime bounds the resources
// they make (see runtime/nethttp), but pair it with a cleaner that folds
// them into few names.
func WithUnmatchedPath() Option {
	return Option(web.UnmatchedPath[*app.RequestContext, blockFunc]())
}

// WithOriginParser sets how the caller's origin is read (Sentinel's
// RequestOriginParser), for authority rules, limitApp and per-origin
// statistics.
func WithOriginParser(parse func(c *app.RequestContext) string) Option {
	return Option(web.OriginParser[*app.RequestContext, blockFunc](parse))
}

// OriginFromHeader returns an origin parser that reads the named request
// header (a copy of it).
func OriginFromHeader(name string) func(c *app.RequestContext) string {
	return func(c *app.RequestContext) string { return string(c.GetHeader(name)) }
}

// WithBlockHandler answers refused requests (Spring's
// BlockExceptionHandler) instead of DefaultBlockHandler; the chain is
// aborted after it.
func WithBlockHandler(h func(ctx context.Context, c *app.RequestContext, b *runtime.BlockError)) Option {
	return Option(web.BlockHandler[*app.RequestContext, blockFunc](h))
}
