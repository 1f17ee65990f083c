package nethttp

import "net/http"

// ServeMux is an http.ServeMux whose handlers each run behind one
// Middleware. It is the cheapest way to protect a server: the mux routes a
// request once and the middleware reads the pattern from r.Pattern, where
// a Middleware wrapping a mux has to ask the mux where a request goes and
// let it route the request again.
//
//	mux := nethttp.NewServeMux(nethttp.WithOriginParser(nethttp.OriginFromHeader("S-user")))
//	mux.HandleFunc("GET /api/order/{id}", getOrder) // resource "/api/order/{id}"
//	http.ListenAndServe(addr, mux)
//
// Requests that match no pattern are answered by the mux unprotected
// (WithUnmatchedPath has no effect here). The embedded *http.ServeMux
// registers handlers without protection, for operational endpoints such
// as metrics: mux.ServeMux.Handle("/metrics", promhttp.Handler()).
type ServeMux struct {
	*http.ServeMux
	protect func(http.Handler) http.Handler
}

// NewServeMux returns an empty ServeMux whose handlers are protected with
// a Middleware made of opts.
func NewServeMux(opts ...Option) *ServeMux {
	return &ServeMux{ServeMux: http.NewServeMux(), protect: Middleware(opts...)}
}

// Handle registers handler for pattern, protected.
func (m *ServeMux) Handle(pattern string, handler http.Handler) {
	m.ServeMux.Handle(pattern, m.protect(handler))
}

// HandleFunc registers handler for pattern, protected.
func (m *ServeMux) HandleFunc(pattern string, handler func(http.ResponseWriter, *http.Request)) {
	m.Handle(pattern, http.HandlerFunc(handler))
}
