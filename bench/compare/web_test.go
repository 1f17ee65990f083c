package compare

import (
	"net/http"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/go-chi/chi/v5"
	"github.com/gorilla/mux"
	"github.com/labstack/echo/v4"

	sentinelchi "github.com/sentinelgen/sentinelgen/adapters/chi"
	sentinelecho "github.com/sentinelgen/sentinelgen/adapters/echo"
	sentinelgin "github.com/sentinelgen/sentinelgen/adapters/gin"
	sentinelgorillamux "github.com/sentinelgen/sentinelgen/adapters/gorillamux"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// The adapters of each web framework in this module; the sentinelgolang
// build adds sentinel-golang's for gin and echo. chi, gorilla/mux and
// net/http have none of theirs.
var (
	ginAdapters        = []adapter[gin.HandlerFunc]{{impl: "ours", middleware: func() gin.HandlerFunc { return sentinelgin.Middleware() }, resource: colonRoute}}
	echoAdapters       = []adapter[echo.MiddlewareFunc]{{impl: "ours", middleware: func() echo.MiddlewareFunc { return sentinelecho.Middleware() }, resource: colonRoute}}
	chiAdapters        = []adapter[func(http.Handler) http.Handler]{{impl: "ours", middleware: func() func(http.Handler) http.Handler { return sentinelchi.Middleware() }, resource: braceRoute}}
	gorillaMuxAdapters = []adapter[mux.MiddlewareFunc]{{impl: "ours", middleware: func() mux.MiddlewareFunc { return sentinelgorillamux.Middleware() }, resource: braceRoute}}
	netHTTPAdapters    = []adapter[func(http.Handler) http.Handler]{{impl: "ours", middleware: func() func(http.Handler) http.Handler { return nethttp.Middleware() }, resource: braceRoute}}
)

// noopHTTP is net/http's middleware that does nothing but call the next
// handler.
func noopHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(w, r) })
}

func BenchmarkGin(b *testing.B) {
	gin.SetMode(gin.ReleaseMode)
	serve := func(mw gin.HandlerFunc) func() int {
		r := gin.New()
		r.Use(mw)
		r.GET(colonRoute, func(c *gin.Context) { c.Status(http.StatusOK) })
		return webtest.ServeHTTP(r, routePath)
	}
	benchFramework(b, serve, func(c *gin.Context) { c.Next() }, http.StatusOK, http.StatusTooManyRequests, ginAdapters)
}

func BenchmarkEcho(b *testing.B) {
	serve := func(mw echo.MiddlewareFunc) func() int {
		e := echo.New()
		e.Use(mw)
		e.GET(colonRoute, func(c echo.Context) error { return c.NoContent(http.StatusOK) })
		return webtest.ServeHTTP(e, routePath)
	}
	noop := func(next echo.HandlerFunc) echo.HandlerFunc { return func(c echo.Context) error { return next(c) } }
	benchFramework(b, serve, noop, http.StatusOK, http.StatusTooManyRequests, echoAdapters)
}

func BenchmarkChi(b *testing.B) {
	serve := func(mw func(http.Handler) http.Handler) func() int {
		r := chi.NewRouter()
		r.Use(mw)
		r.Get(braceRoute, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
		return webtest.ServeHTTP(r, routePath)
	}
	benchFramework(b, serve, noopHTTP, http.StatusOK, http.StatusTooManyRequests, chiAdapters)
}

func BenchmarkGorillaMux(b *testing.B) {
	serve := func(mw mux.MiddlewareFunc) func() int {
		r := mux.NewRouter()
		r.Use(mw)
		r.HandleFunc(braceRoute, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }).Methods(http.MethodGet)
		return webtest.ServeHTTP(r, routePath)
	}
	benchFramework(b, serve, noopHTTP, http.StatusOK, http.StatusTooManyRequests, gorillaMuxAdapters)
}

// BenchmarkNetHTTP is a ServeMux behind the middleware.
func BenchmarkNetHTTP(b *testing.B) {
	serve := func(mw func(http.Handler) http.Handler) func() int {
		m := http.NewServeMux()
		m.HandleFunc("GET "+braceRoute, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
		return webtest.ServeHTTP(mw(m), routePath)
	}
	benchFramework(b, serve, noopHTTP, http.StatusOK, http.StatusTooManyRequests, netHTTPAdapters)
}
