package sentinelgin_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sentinelgin "github.com/sentinelgen/sentinelgen/adapters/gin"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

func TestMain(m *testing.M) {
	gin.SetMode(gin.ReleaseMode)
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	m.Run()
}

// router is the suite's two routes on gin, behind opts' middleware.
func router(opts ...sentinelgin.Option) *gin.Engine {
	r := gin.New()
	r.Use(gin.RecoveryWithWriter(io.Discard), sentinelgin.Middleware(opts...))
	r.GET("/api/order/:id", func(c *gin.Context) {
		code, body := webtest.Order(c.Request.Context(), c.Param("id"))
		c.String(code, body)
	})
	r.GET("/api/other", func(c *gin.Context) { c.String(http.StatusOK, "other") })
	return r
}

func TestGin(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		srv := httptest.NewServer(router())
		t.Cleanup(srv.Close)
		return webtest.Server{URL: srv.URL, Resource: "/api/order/:id", Other: "/api/other", HangUpsEndContext: true}
	})
}

func TestUnmatchedRequestsAreNotProtectedByDefault(t *testing.T) {
	clocktest.Install(t)
	w := httptest.NewRecorder()
	router().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/gin/nowhere", nil))
	assert.Equal(t, http.StatusNotFound, w.Code)
	assert.Nil(t, runtime.LookupResource("/gin/nowhere"))

	w = httptest.NewRecorder()
	router(nethttp.WithUnmatchedPath()).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/gin/unmatched", nil))
	assert.Equal(t, http.StatusNotFound, w.Code)
	require.NotNil(t, runtime.LookupResource("/gin/unmatched"), "WithUnmatchedPath protects it under its path")
}

func TestMethodPrefixNamesTheRouteWithItsMethod(t *testing.T) {
	clocktest.Install(t)
	w := httptest.NewRecorder()
	router(nethttp.WithMethodPrefix()).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/other", nil))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.NotNil(t, runtime.LookupResource("GET:/api/other"))
}
