package sentinelmux_test

import (
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"
	"github.com/stretchr/testify/assert"

	sentinelmux "github.com/sentinelgen/sentinelgen/adapters/gorillamux"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	m.Run()
}

func order(w http.ResponseWriter, r *http.Request) {
	code, body := webtest.Order(r.Context(), mux.Vars(r)["id"])
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

func other(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "other") }

// router is the suite's two routes on gorilla/mux, on a sub-router, behind
// the adapter. gorilla/mux has no recovery of its own: a panic reaches
// net/http, which drops the connection.
func router(opts ...sentinelmux.Option) *mux.Router {
	r := mux.NewRouter()
	r.Use(sentinelmux.Middleware(opts...))
	api := r.PathPrefix("/api").Subrouter()
	api.HandleFunc("/order/{id}", order).Methods(http.MethodGet)
	api.HandleFunc("/other", other).Methods(http.MethodGet)
	return r
}

func TestGorillaMux(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		srv := httptest.NewUnstartedServer(router())
		srv.Config.ErrorLog = log.New(io.Discard, "", 0) // panics are expected
		srv.Start()
		t.Cleanup(srv.Close)
		return webtest.Server{URL: srv.URL, Resource: "/api/order/{id}", Other: "/api/other", HangUpsEndContext: true}
	})
}

func TestPathTemplate(t *testing.T) {
	clocktest.Install(t)
	var seen string
	r := mux.NewRouter()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			seen = sentinelmux.PathTemplate(req)
			next.ServeHTTP(w, req)
		})
	})
	r.HandleFunc("/mux/order/{id:[0-9]+}", other)
	r.PathPrefix("/mux/sub").Subrouter().HandleFunc("/{name}", other)
	for _, tt := range []struct{ target, want string }{
		{"/mux/order/42", "/mux/order/{id:[0-9]+}"},
		{"/mux/sub/x", "/mux/sub/{name}"},
	} {
		seen = "unset"
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, tt.target, nil))
		assert.Equal(t, tt.want, seen, tt.target)
	}
	assert.Empty(t, sentinelmux.PathTemplate(httptest.NewRequest(http.MethodGet, "/", nil)), "not routed by mux")

	w := httptest.NewRecorder()
	router().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/mux/nowhere", nil))
	assert.Equal(t, http.StatusNotFound, w.Code)
	assert.Nil(t, runtime.LookupResource("/mux/nowhere"), "a 404 is not protected")
}
