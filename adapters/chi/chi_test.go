package sentinelchi_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"

	sentinelchi "github.com/sentinelgen/sentinelgen/adapters/chi"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	middleware.DefaultLogger = func(next http.Handler) http.Handler { return next }
	m.Run()
}

func order(w http.ResponseWriter, r *http.Request) {
	code, body := webtest.Order(r.Context(), chi.URLParam(r, "id"))
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

func other(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "other") }

// router is the suite's two routes on chi, the order route on a mounted
// sub-router, behind opts' middleware.
func router(opts ...sentinelchi.Option) chi.Router {
	r := chi.NewRouter()
	r.Use(recoverer, sentinelchi.Middleware(opts...))
	r.Route("/api", func(r chi.Router) {
		r.Get("/order/{id}", order)
		r.Get("/other", other)
	})
	return r
}

// recoverer is chi's Recoverer without its stack dump on stderr.
func recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				w.WriteHeader(http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

func TestChi(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		srv := httptest.NewServer(router())
		t.Cleanup(srv.Close)
		return webtest.Server{URL: srv.URL, Resource: "/api/order/{id}", Other: "/api/other", HangUpsEndContext: true}
	})
}

// RoutePattern, asked before the router routes, finds the pattern that
// will serve the request, across mounted sub-routers.
func TestRoutePattern(t *testing.T) {
	var seen string
	r := chi.NewRouter()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			seen = sentinelchi.RoutePattern(req)
			next.ServeHTTP(w, req)
		})
	})
	r.Route("/api", func(r chi.Router) {
		r.Get("/order/{id}", other)
		r.Get("/files/*", other)
	})
	r.Post("/top", other)
	for _, tt := range []struct{ method, target, want string }{
		{http.MethodGet, "/api/order/42", "/api/order/{id}"},
		{http.MethodGet, "/api/files/a/b", "/api/files/*"},
		{http.MethodPost, "/top", "/top"},
		{http.MethodGet, "/api/nowhere", ""},
		{http.MethodGet, "/top", ""}, // 405
		{"BREW", "/top", ""},         // a method chi does not know
	} {
		seen = "unset"
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(tt.method, tt.target, nil))
		assert.Equal(t, tt.want, seen, "%s %s", tt.method, tt.target)
	}
	assert.Empty(t, sentinelchi.RoutePattern(httptest.NewRequest(http.MethodGet, "/", nil)), "not served by chi")
}

// Inline middleware (r.With) runs after routing: it names the route too.
func TestInlineMiddlewareNamesTheRoute(t *testing.T) {
	clocktest.Install(t)
	r := chi.NewRouter()
	r.With(sentinelchi.Middleware()).Get("/chi/inline/{id}", other)
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/chi/inline/1", nil))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.NotNil(t, runtime.LookupResource("/chi/inline/{id}"))
}
