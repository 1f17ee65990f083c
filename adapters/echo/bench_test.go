package sentinelecho_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	sentinelecho "github.com/sentinelgen/sentinelgen/adapters/echo"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The framework bare, with a middleware that does nothing, and with the
// adapter, serving one route to a recorder: the adapter's cost is the
// difference between the last two.
func BenchmarkEcho(b *testing.B) {
	for _, bc := range []struct {
		name string
		mw   []echo.MiddlewareFunc
	}{
		{"bare", nil},
		{"noop", []echo.MiddlewareFunc{func(next echo.HandlerFunc) echo.HandlerFunc {
			return func(c echo.Context) error { return next(c) }
		}}},
		{"sentinelecho", []echo.MiddlewareFunc{sentinelecho.Middleware()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := echo.New()
			e.Use(bc.mw...)
			e.GET("/bench/order/:id", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
			w := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/bench/order/42", nil)
			e.ServeHTTP(w, req)
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				e.ServeHTTP(w, req)
			}
			stop()
		})
	}
}

// BenchmarkEchoRefused is BenchmarkEcho's adapter case with a flow rule
// that refuses every request, answered by default: to read against the
// admitted case, which it must not exceed.
func BenchmarkEchoRefused(b *testing.B) {
	webtest.Refuse(b, "/bench/order/:id")
	e := echo.New()
	e.Use(sentinelecho.Middleware())
	e.GET("/bench/order/:id", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	webtest.BenchRefused(b, webtest.ServeHTTP(e, "/bench/order/42"))
}

// BenchmarkEntryExit is a plain runtime.Entry and Exit, in this binary:
// the yardstick the adapter's cost over the framework is read against.
func BenchmarkEntryExit(b *testing.B) { webtest.BenchEntryExit(b) }
