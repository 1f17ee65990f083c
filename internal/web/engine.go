package web

import (
	"context"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// ContextName is the Sentinel context inbound requests are entered in:
// Java's SENTINEL_SPRING_WEB_CONTEXT_NAME.
const ContextName = "sentinel_spring_web_context"

// BlockMessage is the body of the default answer to a blocked request,
// Java's DefaultBlockExceptionHandler text.
const BlockMessage = "Blocked by Sentinel (flow limiting)"

// RetryAfter is the Retry-After header of the default answer to a blocked
// request, in seconds.
const RetryAfter = "1"

// Config is what an Engine does with a request of type R. The zero value
// names resources after patterns, enters the shared context, and reads no
// origin, no arguments and no error status.
type Config[R any] struct {
	MethodPrefix  bool // "GET:/api/order/{id}" (Spring's http-method-specify)
	UnmatchedPath bool // protect requests no pattern matched under their path
	// SeparateContexts enters each resource's own context
	// (web-context-unify=false).
	SeparateContexts bool
	Cleaner          func(r R, resource string) string // "" leaves r unprotected
	Origin           func(r R) string
	Args             func(r R) []any
	ErrorStatus      func(code int) bool // nil: no status is an error
}

// Engine resolves, enters and exits inbound requests of type R. One
// Engine serves every request of one middleware, concurrently.
type Engine[R any] struct {
	Config[R]
	routes routeCache
	// opts are every entry's options, built once: inbound, web, and room
	// for the hot-parameter arguments of the calls that need them.
	opts [3]runtime.EntryOption
}

// New returns an Engine configured by cfg.
func New[R any](cfg Config[R]) *Engine[R] {
	return &Engine[R]{Config: cfg, opts: [3]runtime.EntryOption{
		runtime.WithTrafficType(runtime.Inbound),
		runtime.WithResourceType(resourceType),
	}}
}

// Target resolves the resource request r (with method, routed by pattern,
// "" when no pattern matched, to the URL path path) is protected as: a
// declared resource, or a name for runtime.Entry when the name is computed
// per request (a cleaner that rewrote it, an unmatched path). Both empty:
// not protected.
func (g *Engine[R]) Target(r R, method, pattern, path string) (*runtime.Resource, string) {
	var rt *route
	var base string
	switch {
	case pattern != "":
		if rt = g.routes.recent[recentSlot(pattern)].Load(); rt == nil || !rt.keeps(pattern) {
			rt = g.routes.get(pattern)
		}
		if res := rt.plain.Load(); res != nil && g.Cleaner == nil && !g.MethodPrefix {
			return res, "" // rt.resource's common case, without its call
		}
		base = rt.name
	case g.UnmatchedPath:
		base = path
		if base == "" {
			base = "/"
		}
	default:
		return nil, ""
	}
	if g.Cleaner != nil {
		cleaned := g.Cleaner(r, base)
		if cleaned == "" {
			return nil, ""
		}
		if rt != nil && cleaned == base {
			return rt.resource(method, g.MethodPrefix), ""
		}
		base = cleaned
	} else if rt != nil {
		return rt.resource(method, g.MethodPrefix), ""
	}
	if g.MethodPrefix {
		patternMethod := ""
		if rt != nil {
			patternMethod = rt.patternMethod
		}
		return nil, methodLabel(method, patternMethod) + ":" + base
	}
	return nil, base
}

// Enter opens the inbound entry of r for the target Target resolved, in
// ctx, the request's context. Once the resource exists the entry is the
// call's one allocation: in the shared web context when that is the
// request's, with a Sentinel context of its own in the same allocation
// otherwise (an origin, WithWebContextUnify(false)).
func (g *Engine[R]) Enter(ctx context.Context, r R, res *runtime.Resource, name string) (*runtime.SentinelEntry, *runtime.BlockError) {
	opts := g.opts[:2]
	var withArgs [3]runtime.EntryOption
	if g.Args != nil && NeedsArgs(res, name) {
		withArgs = g.withArgs(r)
		opts = withArgs[:]
	}
	ctxName, origin := g.context(r, res, name)
	switch {
	case res == nil:
		return runtime.Entry(runtime.EnterContext(ctx, ctxName, origin), name, opts...)
	case origin == "" && !g.SeparateContexts:
		return res.EntryInSharedContext(ctx, webContext(), opts...)
	}
	return res.EntryInContext(ctx, ctxName, origin, opts...)
}

// EnterWith is Enter that also returns a zero T of the request's own: in
// the entry's allocation once the resource exists, allocated apart when
// the name is computed per request (nil when refused). Middleware keeps
// its status writer there.
func EnterWith[T, R any](g *Engine[R], ctx context.Context, r R, res *runtime.Resource, name string) (*runtime.SentinelEntry, *T, *runtime.BlockError) {
	if res == nil {
		e, b := g.Enter(ctx, r, res, name)
		if b != nil {
			return nil, nil, b
		}
		return e, new(T), nil
	}
	opts := g.opts[:2]
	var withArgs [3]runtime.EntryOption
	if g.Args != nil && res.NeedsArgs() {
		withArgs = g.withArgs(r)
		opts = withArgs[:]
	}
	ctxName, origin := g.context(r, res, name)
	if origin == "" && !g.SeparateContexts {
		return runtime.EntryInSharedContextWith[T](res, ctx, webContext(), opts...)
	}
	return runtime.EntryInContextWith[T](res, ctx, ctxName, origin, opts...)
}

// EnterShared enters res, a declared resource, in the shared web context
// (ContextName, no origin) with the engine's options: what Enter does for
// a request without an origin or arguments to read, for an adapter that
// has found the route's resource itself.
func (g *Engine[R]) EnterShared(ctx context.Context, res *runtime.Resource) (*runtime.SentinelEntry, *runtime.BlockError) {
	return res.EntryInSharedContext(ctx, webContext(), g.opts[:2]...)
}

// webContext is the Sentinel context ContextName without an origin,
// which most requests are entered in, resolved on first use (a race of
// first uses resolves it more than once, to the same context).
func webContext() *runtime.SharedContext {
	if sc := sharedWebContext.Load(); sc != nil {
		return sc // inlined: every shared-context request asks
	}
	return newWebContext()
}

func newWebContext() *runtime.SharedContext {
	sc := runtime.NewSharedContext(ContextName, "")
	sharedWebContext.Store(sc)
	return sc
}

var sharedWebContext atomic.Pointer[runtime.SharedContext]

// context is the Sentinel context's name and the caller's origin.
func (g *Engine[R]) context(r R, res *runtime.Resource, name string) (string, string) {
	origin := ""
	if g.Origin != nil {
		origin = g.Origin(r)
	}
	if !g.SeparateContexts {
		return ContextName, origin
	}
	if res != nil {
		return res.Name(), origin
	}
	return name, origin
}

// withArgs is the entry's options with the hot-parameter arguments of r,
// for a call that a rule reads them in.
func (g *Engine[R]) withArgs(r R) [3]runtime.EntryOption {
	opts := g.opts
	opts[2] = runtime.WithArgs(g.Args(r)...)
	return opts
}

// NeedsArgs reports whether a call to res (or, when nil, the resource
// named name) should carry hot-parameter arguments.
func NeedsArgs(res *runtime.Resource, name string) bool {
	if res == nil {
		res = runtime.LookupResource(name)
	}
	// A resource never entered yet has no rules bound: pass the args, once.
	return res == nil || res.NeedsArgs()
}

// Outcome is the error to record on the entry of a request whose context
// is ctx and that ended with response status code (0 when unknown or
// hijacked) or, when p is not nil, with the panic p: a *PanicError, a
// *StatusError for a status ErrorStatus holds for, or nil, also whenever
// the caller-abort rule says the request's end was its caller's.
func (g *Engine[R]) Outcome(ctx context.Context, code int, p any) error {
	if p == nil && !g.IsErrorStatus(code) {
		return nil
	}
	return g.Failure(ctx, code, p)
}

// IsErrorStatus reports whether code, a response status (0 when
// unknown), is an error by ErrorStatus.
func (g *Engine[R]) IsErrorStatus(code int) bool {
	return code != 0 && g.ErrorStatus != nil && g.ErrorStatus(code)
}

// Failure is Outcome for a request that panicked with p (not nil) or
// ended with a status code IsErrorStatus holds for: a middleware that
// tests those itself calls the engine only for them, most requests
// ending well.
func (g *Engine[R]) Failure(ctx context.Context, code int, p any) error {
	if p != nil {
		if callerAborted(ctx, p) {
			return nil
		}
		return &PanicError{Value: p}
	}
	if ContextEnded(ctx) {
		return nil
	}
	return StatusErrorOf(code)
}
