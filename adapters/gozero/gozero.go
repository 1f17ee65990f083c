// Package sentinelgozero protects go-zero (github.com/zeromicro/go-zero)
// rest routes with the sentinelgen runtime, with the semantics of
// runtime/nethttp's Middleware (Spring's SentinelWebInterceptor):
//
//	server := rest.MustNewServer(c)
//	server.Use(sentinelgozero.Middleware())
//	server.AddRoute(rest.Route{Method: http.MethodGet, Path: "/api/order/:id", Handler: getOrder})
//	// resource "/api/order/:id"
//
// or for some routes only, with rest.WithMiddlewares. Each request is an
// inbound web resource named after its route as go-zero writes it, without
// the method: nethttp.WithMethodPrefix names it "GET:/api/order/:id".
//
// go-zero tells a middleware nothing of its route, but it builds each
// route's chain once, so the middleware learns its route's pattern from
// the first request whose path variables (pathvar.Vars) stand in one
// segment each ("/api/order/42": id is "42", found once), and keeps it;
// a request whose variable's value also stands in a literal segment
// ("/api/order/order") names the rightmost such segment the variable, and
// teaches nothing. Requests no route matched never reach a go-zero
// middleware, so they are not protected (nethttp.WithUnmatchedPath does
// not apply).
//
// A refused request does not reach the handler: it is answered with 429
// Too Many Requests, "Retry-After: 1" and nethttp.BlockMessage (or by
// nethttp.WithBlockHandler or WithBlockPage). A handler's panic (recorded
// as a *nethttp.PanicError, then let go on to go-zero's own recovery,
// which answers 500) and a response status the nethttp.WithErrorStatus
// predicate holds for (5xx by default) are the route's errors, for circuit
// breakers, unless the client had hung up by then: no caller can open a
// breaker for other callers by hanging up or choosing its own deadline.
//
// The request's context carries the entry: pass r.Context() to generated
// wrappers and their resources nest under the route in runtime.Tree.
//
// Options are runtime/nethttp's (Option is nethttp.Option): the origin
// from a header (nethttp.WithOriginParser(nethttp.OriginFromHeader("S-user"))),
// hot-parameter arguments (nethttp.WithArgs), URL cleaners, the block
// answer and the rest, with the caps nethttp documents. WithServeMux and
// WithRouteName do not apply: the route names the resource.
package sentinelgozero

import (
	"net/http"
	"path"
	"strings"
	"sync/atomic"

	"github.com/zeromicro/go-zero/rest"
	"github.com/zeromicro/go-zero/rest/pathvar"

	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Option configures Middleware: any runtime/nethttp Option.
type Option = nethttp.Option

// Middleware returns go-zero middleware that protects every route it is
// used for as an inbound resource named after the route's pattern.
func Middleware(opts ...Option) rest.Middleware {
	return func(next http.HandlerFunc) http.HandlerFunc {
		// go-zero calls a middleware once for each route it binds.
		route := new(routePattern)
		h := nethttp.Middleware(append(opts[:len(opts):len(opts)], nethttp.WithRouteName(route.of))...)(next)
		return h.ServeHTTP
	}
}

// routePattern is one route's pattern, learnt from its requests.
type routePattern struct {
	learnt atomic.Pointer[string]
}

func (p *routePattern) of(r *http.Request) string {
	if pattern := p.learnt.Load(); pattern != nil {
		return *pattern
	}
	pattern, sure := rebuild(path.Clean(r.URL.Path), pathvar.Vars(r))
	if sure {
		p.learnt.Store(&pattern)
	}
	return pattern
}

// rebuild writes cleaned, the path go-zero's router matched, as the route's
// pattern: each segment that holds a path variable's value becomes
// ":name". sure says that no value stood in more than one segment, so the
// pattern is the route's, whatever its literal segments are.
func rebuild(cleaned string, vars map[string]string) (pattern string, sure bool) {
	if len(vars) == 0 {
		return cleaned, true
	}
	segments := strings.Split(cleaned, "/")
	named := make([]string, len(segments)) // the variable each segment is, if any
	sure = true
	for name, value := range vars {
		found := -1
		for i := len(segments) - 1; i >= 0; i-- {
			if segments[i] != value {
				continue
			}
			if found >= 0 {
				sure = false // the value stands in two segments
				continue
			}
			if named[i] != "" {
				sure = false // two variables share the value
				continue
			}
			found = i
		}
		if found < 0 {
			return cleaned, false // not the path the router matched
		}
		named[found] = name
	}
	var b strings.Builder
	b.Grow(len(cleaned) + len(vars))
	for i, s := range segments {
		if i > 0 {
			b.WriteByte('/')
		}
		if named[i] != "" {
			b.WriteByte(':')
			s = named[i]
		}
		b.WriteString(s)
	}
	return b.String(), sure
}
