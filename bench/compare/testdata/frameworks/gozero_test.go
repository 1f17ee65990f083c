package compare

import (
	"net/http"
	"testing"

	"github.com/zeromicro/go-zero/rest"
	"github.com/zeromicro/go-zero/rest/router"

	sentinelgozero "github.com/sentinelgen/sentinelgen/adapters/gozero"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

var goZeroAdapters = []adapter[rest.Middleware]{{impl: "ours", middleware: func() rest.Middleware { return sentinelgozero.Middleware() }, resource: colonRoute}}

// BenchmarkGoZero serves go-zero's router, the route's chain built as
// go-zero's server builds it.
func BenchmarkGoZero(b *testing.B) {
	serve := func(mw rest.Middleware) func() int {
		rt := router.NewRouter()
		h := mw(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
		if err := rt.Handle(http.MethodGet, colonRoute, h); err != nil {
			b.Fatal(err)
		}
		return webtest.ServeHTTP(rt, routePath)
	}
	noop := func(next http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { next(w, r) }
	}
	benchFramework(b, serve, noop, http.StatusOK, http.StatusTooManyRequests, goZeroAdapters)
}
