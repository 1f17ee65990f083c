package dashboard

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/inforce"
)

// Handler serves the introspection page and its JSON. Mount it under a
// path of its own:
//
//	mux.Handle("/sentinel/", http.StripPrefix("/sentinel", dashboard.New()))
//
// It is read-only unless WithRuleUpdates is given.
type Handler struct {
	mux     *http.ServeMux
	kinds   []inforce.Kind
	sources []Source
	updates map[string]RuleFile // by kind name
	limit   int
}

// Source is a rule data source that reports its state, such as a
// *file.Source of runtime/datasource/file.
type Source interface {
	Status() datasource.Status
}

// Option configures a Handler.
type Option func(*Handler)

// WithSource shows src's state and last error.
func WithSource(src Source) Option {
	return func(h *Handler) { h.sources = append(h.sources, src) }
}

// WithRuleKind also shows the rules of a kind of the application's own (see
// inforce.KindOf).
func WithRuleKind(k inforce.Kind) Option {
	return func(h *Handler) { h.kinds = append(h.kinds, k) }
}

// WithPageLimit sets how many resources the page shows (default 50): the
// busiest of the last minute. The JSON endpoints list every resource.
func WithPageLimit(n int) Option {
	return func(h *Handler) {
		if n > 0 {
			h.limit = n
		}
	}
}

// New returns the handler.
func New(opts ...Option) *Handler {
	h := &Handler{mux: http.NewServeMux(), kinds: inforce.Kinds(), limit: 50}
	for _, o := range opts {
		o(h)
	}
	h.mux.HandleFunc("GET /{$}", servePage)
	h.mux.HandleFunc("GET /api/snapshot", h.serveSnapshot)
	h.mux.HandleFunc("GET /api/resources", h.serveResources)
	h.mux.HandleFunc("GET /api/tree", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, runtime.Tree()) })
	h.mux.HandleFunc("GET /api/slots", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, runtime.Slots()) })
	h.mux.HandleFunc("GET /api/rules", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, h.rules()) })
	h.mux.HandleFunc("GET /api/breakers", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, breakers()) })
	h.mux.HandleFunc("GET /api/sources", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, h.sourceStates()) })
	h.mux.HandleFunc("PUT /api/rules/{kind}", h.serveRuleUpdate)
	return h
}

// ServeHTTP serves the page at "/" and the JSON under "/api/".
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mux.ServeHTTP(w, r)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		runtime.Logger().Warn("sentinel: dashboard response failed", slog.Any("error", err))
	}
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
