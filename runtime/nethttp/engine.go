package nethttp

import (
	"net/http"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// Engine is Middleware's per-request logic for routers that run their
// handlers in a chain of their own rather than as one http.Handler (gin,
// echo): the router names the route, Enter admits or refuses the request,
// Exit records how it ended. Every Middleware option applies, with the
// same meaning; WithServeMux and WithRouteName do not, since the router
// passes the pattern itself. The adapters under adapters/ are built on it.
//
//	engine := nethttp.NewEngine(opts...)
//	req, e, ok := engine.Enter(w, r, pattern)
//	if !ok {
//		return // refused, and answered on w
//	}
//	status, p := serve(w, req) // the router's chain, with req
//	engine.Exit(req, e, status, p)
//
// An Engine serves requests concurrently.
type Engine struct {
	cfg    middlewareConfig
	engine *web.Engine[*http.Request]
	// What refused requests leave, for the next ones.
	spares  web.Spares[http.Request]
	entries web.Spares[struct{}]
}

// NewEngine returns an Engine configured by opts.
func NewEngine(opts ...Option) *Engine {
	cfg := middlewareConfig{commonConfig: defaultCommon()}
	for _, o := range opts {
		o.applyMiddleware(&cfg)
	}
	return &Engine{cfg: cfg, engine: cfg.engine()}
}

// Enter admits request r, which the router routed by pattern (the route
// as the router writes it, "/api/order/:id"; "" when no route matched, for
// which WithUnmatchedPath decides). It returns the request the handlers
// should see, which carries the entry in its context, and the entry to
// pass to Exit; e is nil, and req is r, when the request is not protected.
// ok is false when a rule refused the request: Enter has answered it on w
// (WithBlockHandler, WithBlockPage or DefaultBlockHandler), and the
// handlers must not run.
func (g *Engine) Enter(w http.ResponseWriter, r *http.Request, pattern string) (req *http.Request, e *runtime.SentinelEntry, ok bool) {
	res, name := g.engine.Target(r, r.Method, pattern, r.URL.Path)
	if res == nil && name == "" {
		return r, nil, true
	}
	// The request the handlers see lives in the entry's allocation: the
	// copy WithContext makes is inlined and copied there, never on the
	// heap of its own.
	e, req, b := web.EnterSpared(g.engine, &g.spares, r.Context(), r, res, name)
	if b != nil {
		g.cfg.block(w, r, b)
		return r, nil, false
	}
	*req = *r.WithContext(e.Context())
	return req, e, true
}

// EnterEntry is Enter for routers whose own API sets a request's context
// in place (GoFrame's Request.SetCtx), whose handlers so need no copy of
// the request: it returns the entry alone, whose Context the router should
// give the handlers, and allocates the entry alone. e is nil when the
// request is not protected. ok is false when a rule refused the request,
// which EnterEntry has answered on w.
func (g *Engine) EnterEntry(w http.ResponseWriter, r *http.Request, pattern string) (e *runtime.SentinelEntry, ok bool) {
	res, name := g.engine.Target(r, r.Method, pattern, r.URL.Path)
	if res == nil && name == "" {
		return nil, true
	}
	e, _, b := web.EnterSpared(g.engine, &g.entries, r.Context(), r, res, name)
	if b != nil {
		g.cfg.block(w, r, b)
		return nil, false
	}
	return e, true
}

// Exit exits entry e of req (as Enter returned them; nothing when e is
// nil) and records how the request ended: with response status (0 when
// unknown, as after a hijack), or, when p is not nil, with the panic p,
// which the caller then lets go on. A panic, or a status the
// WithErrorStatus predicate holds for, is the route's error, unless the
// request's context had ended by then or the panic is
// http.ErrAbortHandler (see the package documentation).
func (g *Engine) Exit(req *http.Request, e *runtime.SentinelEntry, status int, p any) {
	if e == nil {
		return
	}
	if p != nil || g.engine.IsErrorStatus(status) {
		if err := g.engine.Failure(req.Context(), status, p); err != nil {
			e.SetError(err)
		}
	}
	e.Exit()
}
