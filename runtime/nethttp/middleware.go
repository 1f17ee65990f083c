package nethttp

import (
	"net/http"
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// ContextName is the Sentinel context inbound requests are entered in:
// Java's SENTINEL_SPRING_WEB_CONTEXT_NAME, kept so that rules written for
// a Spring service (a chain-strategy flow rule's refResource) mean the same
// here.
const ContextName = web.ContextName

// BlockMessage is the body of the default answer to a blocked request,
// Java's DefaultBlockExceptionHandler text.
const BlockMessage = web.BlockMessage

type middlewareConfig struct {
	commonConfig
	mux           *http.ServeMux
	routeName     func(r *http.Request) string
	methodPrefix  bool
	unmatchedPath bool
	// separateContexts enters each resource's own context
	// (WithWebContextUnify(false)).
	separateContexts bool
	origin           func(r *http.Request) string
	blockHandler     func(w http.ResponseWriter, r *http.Request, b *runtime.BlockError)
	blockPage        string
}

// engine is the shared per-request logic (internal/web) configured as
// Middleware's options say.
func (c *middlewareConfig) engine() *web.Engine[*http.Request] {
	return web.New(web.Config[*http.Request]{
		MethodPrefix:     c.methodPrefix,
		UnmatchedPath:    c.unmatchedPath,
		SeparateContexts: c.separateContexts,
		Cleaner:          c.cleaner,
		Origin:           c.origin,
		Args:             c.args,
		ErrorStatus:      c.errorStatus,
	})
}

// Middleware protects every request that reaches next as an inbound web
// resource named after the ServeMux pattern that matched (Spring's
// SentinelWebInterceptor). The common case wraps the mux:
//
//	http.ListenAndServe(addr, nethttp.Middleware()(mux))
//
// See the package documentation for how the pattern is found, how blocked
// requests are answered and what counts as an error.
func Middleware(opts ...Option) func(http.Handler) http.Handler {
	cfg := middlewareConfig{commonConfig: defaultCommon()}
	for _, o := range opts {
		o.applyMiddleware(&cfg)
	}
	// Shared by every handler this middleware wraps.
	shared := &middlewareShared{middlewareConfig: cfg, engine: cfg.engine()}
	return func(next http.Handler) http.Handler {
		// A router that wraps its handlers on every request (gorilla/mux)
		// wraps the same handler again and again: it gets the same
		// middleware back.
		return shared.wrapped.Get(*(*web.HandlerKey)(unsafe.Pointer(&next)), func() *middleware {
			m := &middleware{middlewareShared: shared, next: next, mux: cfg.mux}
			if m.mux == nil && m.routeName == nil {
				m.mux, _ = next.(*http.ServeMux)
			}
			return m
		})
	}
}

// Handle registers handler on mux for pattern behind a Middleware made of
// opts. The handler then sees the pattern as r.Pattern, so the mux routes
// each request once.
func Handle(mux *http.ServeMux, pattern string, handler http.Handler, opts ...Option) {
	mux.Handle(pattern, Middleware(opts...)(handler))
}

// HandleFunc is Handle for a handler function.
func HandleFunc(mux *http.ServeMux, pattern string, handler func(http.ResponseWriter, *http.Request), opts ...Option) {
	Handle(mux, pattern, http.HandlerFunc(handler), opts...)
}

// middlewareShared is what every handler a Middleware wraps shares.
type middlewareShared struct {
	middlewareConfig
	engine *web.Engine[*http.Request]
	warned atomic.Bool
	// The allocations refused requests leave, for the next requests.
	states   web.Spares[requestState]
	requests web.Spares[http.Request]
	// The middleware of recently wrapped handlers.
	wrapped web.Wrapped[*middleware]
}

// middleware is one handler a Middleware wraps.
type middleware struct {
	*middlewareShared
	next http.Handler
	mux  *http.ServeMux // the router to ask for the pattern, if any
}

func (m *middleware) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	res, name := m.engine.Target(r, r.Method, m.pattern(r), r.URL.Path)
	if res == nil && name == "" {
		m.next.ServeHTTP(w, r) // not protected
		return
	}
	// The entry, the handler's request and the status writer in one
	// allocation (with the request's Sentinel context, when it has an
	// origin or a context of its own). They are the request's own, never
	// pooled: a handler that keeps its request or writer past returning
	// cannot reach another request's through them.
	var e *runtime.SentinelEntry
	var req *http.Request
	var sw *statusWriter
	var b *runtime.BlockError
	if m.errorStatus != nil {
		var st *requestState
		if e, st, b = web.EnterSpared(m.engine, &m.states, r.Context(), r, res, name); b == nil {
			req, sw = &st.req, &st.writer
		}
	} else {
		e, req, b = web.EnterSpared(m.engine, &m.requests, r.Context(), r, res, name)
	}
	if b != nil {
		m.block(w, r, b)
		return
	}
	// WithContext is inlined: its copy of the request goes straight into
	// the entry's allocation, never on the heap of its own.
	*req = *r.WithContext(e.Context())
	m.serve(w, req, e, sw)
}

// requestState is what an admitted request needs besides its entry: the
// request the handler sees, carrying the entry in its context, and the
// writer that records the response status.
type requestState struct {
	req    http.Request
	writer statusWriter
}

// serve runs the handler for an admitted request r (which carries the
// entry e) and exits the entry, recording a panic or an error status on
// it as the caller-abort rule allows. sw, when not nil, is the request's
// fresh status writer, which serve wraps around w.
func (m *middleware) serve(w http.ResponseWriter, r *http.Request, e *runtime.SentinelEntry, sw *statusWriter) {
	if sw != nil {
		sw.ResponseWriter = w
		w = sw
	}
	done := false
	defer func() {
		if !done {
			// recover is nil after runtime.Goexit: just exit then.
			if p := recover(); p != nil {
				if err := m.engine.Outcome(r.Context(), 0, p); err != nil {
					e.SetError(err)
				}
				e.Exit()
				panic(p) // http.ErrAbortHandler included: the server handles it
			}
		}
		e.Exit()
	}()
	m.next.ServeHTTP(w, r)
	done = true
	if sw != nil {
		if status := sw.status(); m.engine.IsErrorStatus(status) {
			if err := m.engine.Failure(r.Context(), status, nil); err != nil {
				e.SetError(err)
			}
		}
	}
}

// redirectType is the type of http.RedirectHandler's handler, which
// ServeMux.Handler returns for its trailing-slash and path-cleaning
// redirects.
var redirectType = reflect.TypeOf(http.RedirectHandler("/", http.StatusFound))

// pattern finds the pattern that routes r, "" when none does: the
// WithRouteName function's answer, or the ServeMux's.
func (m *middleware) pattern(r *http.Request) string {
	if m.routeName != nil {
		return m.routeName(r)
	}
	if m.mux != nil {
		// The mux routes after this middleware runs: ask it where r goes.
		h, p := m.mux.Handler(r)
		if reflect.TypeOf(h) == redirectType {
			return "" // the mux answers with a redirect; the route is not called
		}
		return p
	}
	if r.Pattern == "" && !m.unmatchedPath && m.warned.CompareAndSwap(false, true) {
		runtime.Logger().Warn("nethttp: request carries no ServeMux pattern and is not protected; " +
			"wrap the ServeMux, pass WithServeMux or WithRouteName, or register the wrapped handler on a ServeMux")
	}
	return r.Pattern
}

func (c *middlewareConfig) block(w http.ResponseWriter, r *http.Request, b *runtime.BlockError) {
	switch {
	case c.blockHandler != nil:
		c.blockHandler(w, r, b)
	case c.blockPage != "":
		http.Redirect(w, r, c.blockPage, http.StatusFound)
	default:
		DefaultBlockHandler(w, r, b)
	}
}

// DefaultBlockHandler answers a blocked request with 429 Too Many Requests,
// "Retry-After: 1" and BlockMessage as a plain-text body, the answer
// http.Error would give. Block handlers may call it for the cases they do
// not handle themselves.
//
// The answer's header values and body are built once and shared by every
// refusal, so answering allocates nothing of its own: under overload most
// requests get this answer.
func DefaultBlockHandler(w http.ResponseWriter, _ *http.Request, _ *runtime.BlockError) {
	h := w.Header()
	// As http.Error: it might be for some other content. The key is
	// canonical already: delete spares Del's canonicalising it. A
	// server's response starts with no headers: nothing to delete then.
	if len(h) != 0 {
		delete(h, "Content-Length")
	}
	// Each value is a slice of its own with no room to grow, so that a
	// later Header().Add appends to a copy, never to the shared array.
	h["Retry-After"] = blockAnswer.retryAfter[:1:1]
	h["Content-Type"] = blockAnswer.contentType[:1:1]
	h["X-Content-Type-Options"] = blockAnswer.noSniff[:1:1]
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write(blockAnswer.body)
}

// blockAnswer is DefaultBlockHandler's answer, built once.
var blockAnswer = struct {
	retryAfter, contentType, noSniff []string
	body                             []byte
}{
	retryAfter:  []string{web.RetryAfter},
	contentType: []string{"text/plain; charset=utf-8"},
	noSniff:     []string{"nosniff"},
	body:        []byte(BlockMessage + "\n"),
}
