package nethttp

import (
	"net/http"
	"net/textproto"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Option configures Middleware.
type Option interface {
	applyMiddleware(*middlewareConfig)
}

// TransportOption configures Transport.
type TransportOption interface {
	applyTransport(*transportConfig)
}

// SharedOption configures both Middleware and Transport: it is an Option
// and a TransportOption.
type SharedOption struct {
	apply func(*commonConfig)
}

func (o SharedOption) applyMiddleware(c *middlewareConfig) { o.applyCommon(&c.commonConfig) }
func (o SharedOption) applyTransport(c *transportConfig)   { o.applyCommon(&c.commonConfig) }

func (o SharedOption) applyCommon(c *commonConfig) {
	if o.apply != nil { // the zero SharedOption does nothing
		o.apply(c)
	}
}

type middlewareOption func(*middlewareConfig)

func (o middlewareOption) applyMiddleware(c *middlewareConfig) { o(c) }

type transportOption func(*transportConfig)

func (o transportOption) applyTransport(c *transportConfig) { o(c) }

// commonConfig is what Middleware and Transport both read.
type commonConfig struct {
	cleaner     func(r *http.Request, resource string) string
	args        func(r *http.Request) []any
	errorStatus func(code int) bool
}

func defaultCommon() commonConfig {
	return commonConfig{errorStatus: ServerError}
}

// ServerError reports whether code is a 5xx status: the default
// WithErrorStatus predicate.
func ServerError(code int) bool { return code >= 500 && code <= 599 }

// WithURLCleaner rewrites the resource name before it is used (Spring's
// UrlCleaner), for example to fold path segments that carry IDs into one
// resource. It receives the request and the name the adapter would use
// without the method prefix: the ServeMux pattern without method and host
// for Middleware ("/api/order/{id}"), the URL without query for Transport
// ("http://pay:8080/orders/42"). The method prefix, where one applies, is
// added to what it returns. Returning "" leaves the request unprotected.
func WithURLCleaner(clean func(r *http.Request, resource string) string) SharedOption {
	return SharedOption{func(c *commonConfig) { c.cleaner = clean }}
}

// WithArgs passes arguments to hot-parameter rules on the resource (Java's
// SphU.entry args): fn is called, and its result boxed, only when a
// hot-parameter rule applies to the resource (runtime.Resource.NeedsArgs),
// so requests to resources without such rules pay nothing. By default no
// arguments are passed.
func WithArgs(fn func(r *http.Request) []any) SharedOption {
	return SharedOption{func(c *commonConfig) { c.args = fn }}
}

// WithErrorStatus sets which response status codes are recorded on the
// entry as errors, for error-ratio and error-count circuit breakers. The
// default is ServerError (5xx). nil records no status as an error; the
// middleware then does not wrap the ResponseWriter at all.
func WithErrorStatus(isError func(code int) bool) SharedOption {
	return SharedOption{func(c *commonConfig) { c.errorStatus = isError }}
}

// WithServeMux names the ServeMux whose routing decides the resource, for
// a Middleware that wraps the mux indirectly (inside other middleware).
// A Middleware that wraps a *http.ServeMux directly finds it by itself.
func WithServeMux(mux *http.ServeMux) Option {
	return middlewareOption(func(c *middlewareConfig) { c.mux = mux })
}

// WithRouteName names the route of each request for routers other than
// http.ServeMux: routeName returns the pattern that routes r, as the
// router writes it ("/api/order/{id}", "/api/order/:id"), "" when no route
// matched (then the WithUnmatchedPath policy applies). The resource is the
// pattern without method and host, as for a ServeMux. It is called before
// the handler, so the router must have matched the route by then: use a
// router's middleware that runs after routing, or ask the router. The
// adapters under adapters/ (gin, echo, chi, gorilla/mux, fiber) do this for
// their routers. The patterns must be the router's, not request paths:
// they are cached for the life of the middleware (4,096 at most).
//
//	mw := nethttp.Middleware(nethttp.WithRouteName(func(r *http.Request) string {
//		return myrouter.PatternOf(r)
//	}))
func WithRouteName(routeName func(r *http.Request) string) Option {
	return middlewareOption(func(c *middlewareConfig) { c.routeName = routeName })
}

// WithMethodPrefix names resources "GET:/api/order" instead of "/api/order"
// (Spring's http-method-specify), so that each method of a route has its
// own rules and statistics.
func WithMethodPrefix() Option {
	return middlewareOption(func(c *middlewareConfig) { c.methodPrefix = true })
}

// WithWebContextUnify(false) enters each request in a Sentinel context
// named after its resource ("/api/order", or "GET:/api/order" with
// WithMethodPrefix) instead of the one shared context ContextName: Spring's
// spring.cloud.sentinel.web-context-unify=false. A chain-strategy flow rule
// whose refResource names a route then limits the calls the route makes,
// which is the only way such rules apply in Java. Each route's context
// counts toward runtime.MaxContexts, so pair it with routes (or a URL
// cleaner) that make few resource names. The default, true, is Spring's.
func WithWebContextUnify(unify bool) Option {
	return middlewareOption(func(c *middlewareConfig) { c.separateContexts = !unify })
}

// WithUnmatchedPath protects requests that match no ServeMux pattern
// (404s, 405s, and requests without routing information) under their URL
// path. By default they are not protected; see the package documentation
// for why.
func WithUnmatchedPath() Option {
	return middlewareOption(func(c *middlewareConfig) { c.unmatchedPath = true })
}

// WithOriginParser sets how the caller's origin is read from a request
// (Sentinel's RequestOriginParser). The origin feeds authority rules, flow
// rules' limitApp and per-origin statistics. By default there is none.
func WithOriginParser(parse func(r *http.Request) string) Option {
	return middlewareOption(func(c *middlewareConfig) { c.origin = parse })
}

// OriginFromHeader returns an origin parser that reads the first value of
// the named request header:
//
//	nethttp.WithOriginParser(nethttp.OriginFromHeader("S-user"))
func OriginFromHeader(name string) func(r *http.Request) string {
	key := textproto.CanonicalMIMEHeaderKey(name)
	return func(r *http.Request) string {
		if v := r.Header[key]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
}

// WithBlockHandler answers blocked requests (Spring's
// BlockExceptionHandler). It takes precedence over WithBlockPage.
func WithBlockHandler(h func(w http.ResponseWriter, r *http.Request, b *runtime.BlockError)) Option {
	return middlewareOption(func(c *middlewareConfig) { c.blockHandler = h })
}

// WithBlockPage redirects blocked requests to url with 302 Found (Spring's
// spring.cloud.sentinel.block-page).
func WithBlockPage(url string) Option {
	return middlewareOption(func(c *middlewareConfig) { c.blockPage = url })
}

// WithFallback answers blocked outbound requests instead of returning the
// *runtime.BlockError (Feign's fallback). The request body is closed after
// the fallback returns.
func WithFallback(fallback func(r *http.Request, b *runtime.BlockError) (*http.Response, error)) TransportOption {
	return transportOption(func(c *transportConfig) { c.fallback = fallback })
}
