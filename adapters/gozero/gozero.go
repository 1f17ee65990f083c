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
// segment each ("/api/order/42": id is "42", found once), and keeps it.
// Until then a request is ambiguous when a variable's value also stands in
// a literal segment ("/api/order/order") or two variables hold the same
// value ("/api/x/x/lines"): the pattern is one of a few candidates, made
// of the route's own literals and variable names, and the request is
// named after the candidate that rules protect (a resource called before
// with a rule on it), else the first (the variables read right to left,
// in name order), and teaches nothing. Requests no route matched never reach a go-zero
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
	"slices"
	"strings"
	"sync/atomic"

	"github.com/zeromicro/go-zero/rest"
	"github.com/zeromicro/go-zero/rest/pathvar"

	"github.com/sentinelgen/sentinelgen/runtime"
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
	var found [maxCandidates]string
	candidates := rebuild(found[:0], path.Clean(r.URL.Path), pathvar.Vars(r))
	switch len(candidates) {
	case 0:
		return "" // not the path the router matched: unmatched
	case 1:
		p.learnt.Store(&candidates[0])
		return candidates[0]
	}
	// Ambiguous: the pattern is one of these, made of the route's own
	// literal segments and variable names (a segment kept as text holds
	// a value equal to a literal), so a caller chooses none of them. A
	// candidate that rules protect is the route's; else the first.
	for _, c := range candidates {
		for _, name := range [...]string{c, r.Method + ":" + c} {
			if res := runtime.LookupResource(name); res != nil && res.Protected() {
				return c
			}
		}
	}
	return candidates[0]
}

// maxCandidates bounds the patterns an ambiguous request is read as.
const maxCandidates = 16

// rebuild appends to dst each way of writing cleaned, the path go-zero's
// router matched, as a pattern in which every path variable stands in one
// segment that holds its value (":name"): one when no value stands in two
// segments, none when a value stands in none. Candidates come in a fixed
// order, at most maxCandidates of them.
func rebuild(dst []string, cleaned string, vars map[string]string) []string {
	if len(vars) == 0 {
		return append(dst, cleaned)
	}
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	slices.Sort(names)
	segments := strings.Split(cleaned, "/")
	named := make([]string, len(segments)) // the variable each segment is, if any
	var assign func(i int)
	assign = func(i int) {
		if len(dst) == maxCandidates {
			return
		}
		if i == len(names) {
			dst = append(dst, write(segments, named))
			return
		}
		value := vars[names[i]]
		for j := len(segments) - 1; j >= 0; j-- {
			if segments[j] == value && named[j] == "" {
				named[j] = names[i]
				assign(i + 1)
				named[j] = ""
			}
		}
	}
	assign(0)
	return dst
}

func write(segments, named []string) string {
	var b strings.Builder
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
	return b.String()
}
