// Package web is the per-request logic of inbound HTTP protection, shared
// by runtime/nethttp's Middleware and the web framework adapters under
// adapters/ (gin, echo, chi, gorilla/mux, fiber, go-zero, Iris, GoFrame,
// Hertz), so that every router
// names, admits, refuses and records a request the same way:
//
//   - the resource is the router's pattern without method and host,
//     declared once per (pattern, method) and looked up without a lock
//     (naming.go); a URL cleaner, the method prefix and the policy for
//     unmatched requests apply on top;
//   - the entry is inbound and of type web, in the context ContextName
//     (or one per resource, web-context-unify=false), with the caller's
//     origin and, only when a hot-parameter rule reads them, arguments
//     from the request (engine.go);
//   - what the handler did is recorded by the caller-abort rule: a panic
//     and an error status are the route's errors, unless the request's
//     context had ended or the panic is http.ErrAbortHandler (abort.go).
//
// The request type is a type parameter: *http.Request for net/http
// routers, the framework's own context where requests are not net/http's
// (fiber). Answering a refused request and reading the response status are
// the adapter's, since each framework writes responses its own way.
package web
