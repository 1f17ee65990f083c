package dashboard

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/sentinelgen/sentinelgen/internal/hostguard"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// Handler serves the introspection page and its JSON. Mount it under a
// path of its own:
//
//	mux.Handle("/sentinel/", http.StripPrefix("/sentinel", dashboard.New()))
//
// It is read-only unless WithRuleUpdates is given.
type Handler struct {
	config
	mux *http.ServeMux
}

// config is what the options set.
type config struct {
	kinds   []datasource.Kind
	sources []datasource.Source
	updates map[string]RuleFile // by kind name
	limit   int

	checkHosts     bool
	allowedHosts   hostguard.List
	trustedOrigins []string
}

// Option configures a Handler.
type Option func(*config)

// WithSource shows src's state, last error and warnings.
func WithSource(src datasource.Source) Option {
	return func(c *config) { c.sources = append(c.sources, src) }
}

// WithRuleKind also shows the rules of a kind of the application's own
// (made with datasource.NewKind).
func WithRuleKind(k datasource.Kind) Option {
	return func(c *config) { c.kinds = append(c.kinds, k) }
}

// WithPageLimit sets how many resources the page shows (default 50): the
// busiest of the last minute. The JSON endpoints list every resource.
func WithPageLimit(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.limit = n
		}
	}
}

// New returns the handler.
func New(opts ...Option) *Handler {
	h := &Handler{config: config{kinds: datasource.Kinds(), limit: 50}, mux: http.NewServeMux()}
	for _, o := range opts {
		o(&h.config)
	}
	h.mux.HandleFunc("GET /{$}", servePage)
	h.mux.HandleFunc("GET /api/snapshot", h.serveSnapshot)
	h.mux.HandleFunc("GET /api/resources", h.serveResources)
	h.mux.HandleFunc("GET /api/tree", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, labelTree(runtime.Tree())) })
	h.mux.HandleFunc("GET /api/slots", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, runtime.Slots()) })
	h.mux.HandleFunc("GET /api/rules", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, h.rules()) })
	h.mux.HandleFunc("GET /api/breakers", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, breakers()) })
	h.mux.HandleFunc("GET /api/limiters", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, limiters()) })
	h.mux.HandleFunc("GET /api/sources", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, h.sourceStates()) })
	cop := http.NewCrossOriginProtection()
	for _, o := range h.trustedOrigins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			panic("dashboard.WithTrustedOrigins: " + err.Error())
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusForbidden, "cross-origin rule update refused (dashboard.WithTrustedOrigins lets an origin through)")
	}))
	h.mux.Handle("PUT /api/rules/{kind}", cop.Handler(http.HandlerFunc(h.serveRuleUpdate)))
	if len(h.updates) > 0 {
		h.checkHosts = true
	}
	return h
}

// ServeHTTP serves the page at "/" and the JSON under "/api/".
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w)
	if h.checkHosts && !h.allowedHosts.Allowed(r) {
		writeError(w, http.StatusForbidden, "host not allowed (dashboard.WithAllowedHosts adds the names this dashboard is reached by)")
		return
	}
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
