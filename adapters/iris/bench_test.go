package sentineliris_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kataras/iris/v12"

	sentineliris "github.com/sentinelgen/sentinelgen/adapters/iris"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The framework bare, with a middleware that does nothing, and with the
// adapter, serving one route to a recorder: the adapter's cost is the
// difference between the last two.
func BenchmarkIris(b *testing.B) {
	for _, bc := range []struct {
		name string
		mw   []iris.Handler
	}{
		{"bare", nil},
		{"noop", []iris.Handler{func(ctx iris.Context) { ctx.Next() }}},
		{"sentineliris", []iris.Handler{sentineliris.Middleware()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a := iris.New()
			a.Logger().SetLevel("disable")
			a.Use(bc.mw...)
			a.Get("/bench/order/{id}", func(ctx iris.Context) { ctx.StatusCode(http.StatusOK) })
			if err := a.Build(); err != nil {
				b.Fatal(err)
			}
			w := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/bench/order/42", nil)
			a.ServeHTTP(w, req)
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				a.ServeHTTP(w, req)
			}
			stop()
		})
	}
}

// BenchmarkEntryExit is a plain runtime.Entry and Exit, in this binary:
// the yardstick the adapter's cost over the framework is read against.
func BenchmarkEntryExit(b *testing.B) { webtest.BenchEntryExit(b) }

// BenchmarkIrisRefused is BenchmarkIris's adapter case with a flow rule
// that refuses every request, answered by default.
func BenchmarkIrisRefused(b *testing.B) {
	webtest.Refuse(b, "/bench/order/{id}")
	a := iris.New()
	a.Logger().SetLevel("disable")
	a.Use(sentineliris.Middleware())
	a.Get("/bench/order/{id}", func(ctx iris.Context) { ctx.StatusCode(http.StatusOK) })
	if err := a.Build(); err != nil {
		b.Fatal(err)
	}
	webtest.BenchRefused(b, webtest.ServeHTTP(a, "/bench/order/42"))
}
