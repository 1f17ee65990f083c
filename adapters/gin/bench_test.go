package sentinelgin_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"

	sentinelgin "github.com/sentinelgen/sentinelgen/adapters/gin"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The framework bare, with a middleware that does nothing, and with the
// adapter, serving one route to a recorder: the adapter's cost is the
// difference between the last two.
func BenchmarkGin(b *testing.B) {
	for _, bc := range []struct {
		name string
		mw   []gin.HandlerFunc
	}{
		{"bare", nil},
		{"noop", []gin.HandlerFunc{func(c *gin.Context) { c.Next() }}},
		{"sentinelgin", []gin.HandlerFunc{sentinelgin.Middleware()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := gin.New()
			r.Use(bc.mw...)
			r.GET("/bench/order/:id", func(c *gin.Context) { c.Status(http.StatusOK) })
			w := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/bench/order/42", nil)
			r.ServeHTTP(w, req)
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				r.ServeHTTP(w, req)
			}
			stop()
		})
	}
}

// BenchmarkGinRefused is BenchmarkGin's adapter case with a flow rule that
// refuses every request, answered by default: to read against the
// admitted case, which it must not exceed.
func BenchmarkGinRefused(b *testing.B) {
	webtest.Refuse(b, "/bench/order/:id")
	r := gin.New()
	r.Use(sentinelgin.Middleware())
	r.GET("/bench/order/:id", func(c *gin.Context) { c.Status(http.StatusOK) })
	webtest.BenchRefused(b, webtest.ServeHTTP(r, "/bench/order/42"))
}

// BenchmarkEntryExit is a plain runtime.Entry and Exit, in this binary:
// the yardstick the adapter's cost over the framework is read against.
func BenchmarkEntryExit(b *testing.B) { webtest.BenchEntryExit(b) }
