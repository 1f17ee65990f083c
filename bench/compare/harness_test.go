package compare

import (
	"testing"

	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// adapter is one protector's middleware, of type M, for a framework.
type adapter[M any] struct {
	impl       string   // the protector's name: "ours" or "theirs"
	middleware func() M // the middleware with its default options
	resource   string   // the resource it names the benchmark's request
}

// Outcomes of an RPC call, for serve functions of RPC frameworks.
const (
	rpcOK    = 0
	rpcError = 1
)

// benchFramework benchmarks one request through a framework, served by the
// function serve returns for a middleware: with noop, a middleware that
// does nothing (impl=bare), then with each adapter, admitted and refused
// (answered by default). serve's function returns the request's outcome:
// ok when admitted, refused when refused.
func benchFramework[M any](b *testing.B, serve func(M) func() int, noop M, ok, refused int, adapters []adapter[M]) {
	b.Run("path=admitted/impl=bare", func(b *testing.B) { benchServe(b, serve(noop), ok) })
	for _, a := range adapters {
		p := protectorNamed(a.impl)
		b.Run("path=admitted/impl="+a.impl, func(b *testing.B) {
			p.admitting(b, a.resource)
			benchServe(b, serve(a.middleware()), ok)
		})
		b.Run("path=refused/impl="+a.impl, func(b *testing.B) {
			p.refusing(b, a.resource)
			benchServe(b, serve(a.middleware()), refused)
		})
	}
}

// benchServe runs serve, whose every outcome must be want.
func benchServe(b *testing.B, serve func() int, want int) {
	if got := serve(); got != want {
		b.Fatalf("outcome %d, want %d", got, want)
	}
	b.ReportAllocs()
	defer webtest.CPUTimer(b)()
	for b.Loop() {
		serve()
	}
}

// The route every web framework case serves, in each router's syntax, and
// the path of its request.
const (
	colonRoute = "/compare/order/:id"
	braceRoute = "/compare/order/{id}"
	routePath  = "/compare/order/42"
)

// Resources sentinel-golang's web adapters name the request: the method
// and the route ("GET:/compare/order/:id") or, where the adapter does not
// know the route, the path ("GET:/compare/order/42").
const (
	theirRouteResource = "GET:" + colonRoute
	theirPathResource  = "GET:" + routePath
)
