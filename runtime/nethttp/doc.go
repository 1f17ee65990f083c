// Package nethttp protects net/http servers and clients with the sentinelgen
// runtime: Middleware is Spring's SentinelWebInterceptor for inbound
// requests, Transport is the Feign integration for outbound ones.
//
// # Setup
//
// Register handlers on a protected ServeMux, and every request is an
// inbound resource named after the pattern that routes it:
//
//	mux := nethttp.NewServeMux()
//	mux.HandleFunc("GET /api/order/{id}", getOrder) // resource "/api/order/{id}"
//	http.ListenAndServe(addr, mux)
//
// and send outbound requests through a Transport:
//
//	client := &http.Client{Transport: nethttp.Transport(nil)} // "GET:http://pay:8080/charge"
//
// Rules then name these resources, as they would in a Spring service:
//
//	[{"resource": "/api/order/{id}", "grade": 1, "count": 20}]
//
// # Which pattern
//
// The middleware names a request after the ServeMux pattern that routes
// it. Three ways to install it:
//
//   - NewServeMux, or nethttp.Handle(mux, pattern, handler, opts...), or
//     any Middleware(...)(handler) registered on a mux: the handler runs
//     after routing and reads the pattern from r.Pattern, so each request
//     is routed once. The cheapest: a request costs 2 allocations, the
//     mux's routing and one object holding the entry, its Sentinel
//     context, the request copy that carries the entry and the writer
//     that records the status (no writer with WithErrorStatus(nil)).
//   - nethttp.Middleware()(mux): wrapping an existing *http.ServeMux. The
//     middleware runs before the mux has routed the request, so it asks the
//     mux where the request goes (ServeMux.Handler) and the mux routes it
//     again when it serves it: one more allocation and the routing twice.
//   - nethttp.Middleware(nethttp.WithServeMux(mux))(chain): when other
//     middleware stands between this one and the mux, name the mux.
//   - nethttp.Middleware(nethttp.WithRouteName(fn)): any other router. fn
//     returns the pattern that routes a request ("/api/order/:id"), "" for
//     none; the resource is named after it as after a ServeMux pattern.
//     The modules under adapters/ do this for gin, echo, chi, gorilla/mux
//     and fiber, with the same semantics as this package.
//
// # Resource names
//
// The resource is the pattern without its method and host: "GET
// example.com/api/order/{id}" is protected as "/api/order/{id}", wildcards
// as written, as Spring names a request after its best-matching pattern.
// Requests to several hosts' patterns with the same path share a resource;
// a URL cleaner can tell them apart (it receives the request, r.Host
// included).
//
// WithMethodPrefix names the resource "GET:/api/order/{id}" (Spring's
// http-method-specify), after the request's method (a HEAD request served
// by a GET pattern is "HEAD:..."). Only the eight methods of RFC 9110 and
// PATCH, and a method the pattern itself names, appear in names; any other
// is named "OTHER", because clients choose methods freely.
//
// WithURLCleaner rewrites the name (Spring's UrlCleaner) before the method
// prefix goes on; a cleaner that returns "" leaves the request unprotected.
//
// Requests that match no pattern (404), match a pattern only for another
// method (405), are redirected by the mux (trailing slash, unclean path), or
// reach a middleware that has no routing information at all, are not
// protected by default. A name taken from the URL lets clients create
// resources: the runtime bounds them (past runtime.MaxResources they are
// counted together on one overflow resource, and routes and resources that
// rules name keep their own), but a scan of random URLs would still fill
// the table with noise. WithUnmatchedPath protects them under their URL
// path anyway; pair it with a cleaner that folds paths into few names. A middleware with no routing
// information (not wrapping a mux, not registered on one) logs a warning
// once.
//
// # Context, origin and the call tree
//
// Each request is entered as an inbound (runtime.Inbound) web
// (runtime.Web) resource in the Sentinel context ContextName
// ("sentinel_spring_web_context", Java's name, so chain-strategy rules from
// a Spring service keep their meaning), unless the request's context
// already carries a Sentinel context or entry. WithWebContextUnify(false)
// is Spring's web-context-unify=false: each request enters a context named
// after its resource instead, so a chain-strategy flow rule whose
// refResource names a route limits the calls that route makes. The caller's origin, for
// authority rules, flow rules' limitApp and per-origin statistics, comes
// from WithOriginParser; OriginFromHeader("S-user") reads a header. There
// is no origin by default. An origin from a header is what the client says:
// take it from a header your gateway sets, since each distinct origin also
// gets statistics of its own on every resource.
//
// The handler's request carries the entry: r.Context() passed to generated
// wrappers (or runtime.Entry) makes their resources children of the route in
// runtime.Tree, as nested calls are in Java.
//
// # Blocked requests
//
// A blocked request does not reach the handler. It is answered by the
// WithBlockHandler function, else by a 302 redirect to the WithBlockPage
// URL, else by DefaultBlockHandler: 429 Too Many Requests, "Retry-After: 1",
// and BlockMessage as a plain-text body.
//
// # Errors
//
// What the handler does wrong is recorded on the entry, for error-ratio and
// error-count circuit breakers:
//
//   - a panic is recorded as a *PanicError, the entry exits, and the panic
//     goes on to the server, so no thread count leaks;
//   - a response status for which the WithErrorStatus predicate holds (5xx
//     by default) is recorded as a *StatusError.
//
// No caller can open a breaker for other callers by choosing its own
// deadline or hanging up. Once the request's context has ended (the client
// hung up, or the server closed the connection) nothing the handler does is
// recorded: a 5xx it answers then ("my upstream call was canceled") or a
// panic is what is left of an abandoned request. A panic with
// http.ErrAbortHandler is never recorded: it is net/http's way to abort a
// response, which the server does not count as a failure either, and
// httputil.ReverseProxy raises it when a client hangs up mid-body (an
// upstream that fails mid-body is the error of the proxy's Transport). The
// request's response time is counted all the same, so slow-call-ratio
// breakers still see a slow route.
//
// To read the status the middleware wraps the ResponseWriter. The wrapper
// has Unwrap, for http.ResponseController, and Flush, Hijack, Push and
// ReadFrom methods for code that type-asserts http.Flusher, http.Hijacker,
// http.Pusher or io.ReaderFrom (Hijack and Push return http.ErrNotSupported
// where the server's writer lacks them). WithErrorStatus(nil) records no
// status and passes the ResponseWriter through untouched.
//
// # Outbound requests
//
// Transport names each request "METHOD:scheme://host[:port]/path", the
// path escaped as on the wire, without query (Feign's method + url +
// path); WithURLCleaner rewrites the URL part (fold IDs in paths into
// one name), or returns "" to send a request unprotected. The resource is
// outbound and of type web (as Sentinel's OkHttp and Apache HttpClient
// adapters). It is entered in the request's context: within a protected
// handler, pass r.Context() to the outbound request and the call is a child
// of the route. Unlike Feign, a request outside any Sentinel context is not
// given a context named after its resource: contexts are capped at
// runtime.MaxContexts, and a context per URL would use them up.
//
// Transport errors, response statuses the WithErrorStatus predicate holds
// for (5xx by default), errors reading the response body and panics of the
// base transport (which go on) are recorded on the entry. A blocked request is not sent: the WithFallback function
// answers it, or RoundTrip returns the *runtime.BlockError, which
// http.Client wraps in a *url.Error (errors.Is(err, runtime.ErrBlocked)
// and errors.As(err, &blockErr) hold). The request body is closed either
// way, as the RoundTripper contract requires.
//
// The same caller-abort rule holds outbound: nothing that ends a request
// whose context has ended — canceled, or past its deadline, whoever set it:
// the calling code, http.Client.Timeout, or a deadline inherited from an
// inbound request's context — is recorded, before the response, on its
// status or while its body is read. A caller's impatience must not open an
// error breaker on a healthy upstream for every other caller. The call's
// response time is still counted, so a slow upstream shows in
// slow-call-ratio breakers: to break on an upstream that is too slow, use
// a slow-call rule whose maxAllowedRt is below your deadline.
//
// The entry stays open while the response body is: it exits at the first
// of io.EOF, a read error, or Close, so the response time and the thread
// count cover the whole exchange. A response without a body (http.NoBody)
// or a 101 Switching Protocols exits at once. A body that is neither read
// to the end nor closed (a bug: it also leaks its connection) would hold
// its thread count forever; as a backstop the entry exits when the body is
// garbage-collected, with a warning naming the resource.
//
// # Arguments for hot-parameter rules
//
// None are passed by default. WithArgs(func(r) []any) supplies them, on
// Middleware and Transport alike; it is called only when a hot-parameter
// rule applies to the resource (runtime.Resource.NeedsArgs), so requests to
// other resources box nothing.
//
// # Cost
//
// Measured on the 2-core reference machine (go test -bench . -benchmem,
// CPU time per request, medians of six runs on a shared machine): a bare
// ServeMux serves a request to an httptest.ResponseRecorder in about 96 ns
// and 1 allocation (16 B). NewServeMux serves it with 2 allocations
// (496 B): the route match, and one 480-byte object holding the entry,
// the request copy that carries the entry (http.Request's context cannot
// be set in place: the copy WithContext makes is inlined into this
// object) and the status writer. Requests share one Sentinel context, the web
// context without an origin; a request with an origin, or with a context
// of its own (WithWebContextUnify(false)), has its context in the same
// object, 56 bytes more. Middleware wrapping a mux adds the second
// routing: 3 allocations (512 B), about 520 ns. A refused request
// allocates nothing of its own (1 allocation, 16 B, the mux's; about
// 250 ns on a loaded machine): the object is allocated before the rules
// are asked, and a refused request's serves the middleware's next
// request, since nothing refers to a refused entry.
//
// The request copy and the status writer share the entry's allocation
// rather than coming from a pool: a handler that keeps its request or
// ResponseWriter after returning reaches its own request's, never a later
// request's. (A refused request's handler never ran: only its allocation
// is reused.) When the resource is named per request (a URL cleaner that
// rewrites the name, WithUnmatchedPath on an unmatched request), the
// Sentinel context, the entry and the rest are allocated separately, as
// the name is.
//
// Transport adds about 0.75 µs and 5 allocations to a round trip (the
// name, the entry, the body wrapper and its cleanup). The network costs
// far more in both directions.
package nethttp
