package sentinelecho_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sentinelecho "github.com/sentinelgen/sentinelgen/adapters/echo"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	m.Run()
}

// server is the suite's two routes on echo, behind opts' middleware, and a
// route whose handler returns errors rather than answering.
func server(opts ...sentinelecho.Option) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Logger.SetOutput(io.Discard)
	e.Use(middleware.Recover(), sentinelecho.Middleware(opts...))
	e.GET("/api/order/:id", func(c echo.Context) error {
		code, body := webtest.Order(c.Request().Context(), c.Param("id"))
		return c.String(code, body)
	})
	e.GET("/api/other", func(c echo.Context) error { return c.String(http.StatusOK, "other") })
	e.GET("/echo/error/:kind", func(c echo.Context) error {
		switch c.Param("kind") {
		case "plain":
			return io.ErrUnexpectedEOF // echo answers 500
		case "unavailable":
			return echo.NewHTTPError(http.StatusServiceUnavailable)
		}
		return echo.NewHTTPError(http.StatusNotFound)
	})
	return e
}

func TestEcho(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		srv := httptest.NewServer(server())
		t.Cleanup(srv.Close)
		return webtest.Server{URL: srv.URL, Resource: "/api/order/:id", Other: "/api/other", HangUpsEndContext: true}
	})
}

// A handler's returned error counts by the status echo answers it with.
func TestReturnedErrorsCountByTheirStatus(t *testing.T) {
	clk := clocktest.Install(t)
	require.NoError(t, degrade.LoadRules(nil))
	e := server()
	for _, tt := range []struct {
		kind   string
		status int
		errors float64
	}{{"plain", 500, 1}, {"unavailable", 503, 2}, {"missing", 404, 2}} {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/echo/error/"+tt.kind, nil))
		assert.Equal(t, tt.status, w.Code, tt.kind)
		assert.Equal(t, tt.errors, runtime.LookupResource("/echo/error/:kind").ClusterNode().ExceptionQPS(clk.Millis()), tt.kind)
	}
}

func TestUnmatchedRequestsAreNotProtectedByDefault(t *testing.T) {
	clocktest.Install(t)
	for _, target := range []string{"/echo/nowhere", "/api/other/deeper"} {
		w := httptest.NewRecorder()
		server().ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
		assert.Equal(t, http.StatusNotFound, w.Code)
		assert.Nil(t, runtime.LookupResource(target))
	}
	w := httptest.NewRecorder()
	server().ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/api/other", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
	assert.Nil(t, runtime.LookupResource("POST:/api/other"))

	w = httptest.NewRecorder()
	server(nethttp.WithUnmatchedPath()).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/echo/unmatched", nil))
	assert.Equal(t, http.StatusNotFound, w.Code)
	assert.NotNil(t, runtime.LookupResource("/echo/unmatched"), "WithUnmatchedPath protects it under its path")
}
