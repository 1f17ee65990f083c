package sentinelkitex_test

import (
	"context"
	"testing"

	"github.com/cloudwego/kitex/pkg/endpoint"
	"github.com/cloudwego/kitex/pkg/rpcinfo"

	sentinelkitex "github.com/sentinelgen/sentinelgen/adapters/kitex"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// serverContext is the context Kitex's server gives each call's
// middleware: its RPCInfo, with the invocation.
func serverContext() context.Context {
	ri := rpcinfo.NewRPCInfo(rpcinfo.EmptyEndpointInfo(), rpcinfo.EmptyEndpointInfo(),
		rpcinfo.NewServerInvocation(), rpcinfo.NewRPCConfig(), rpcinfo.NewRPCStats())
	inv := ri.Invocation().(rpcinfo.InvocationSetter)
	inv.SetServiceName("OrderService")
	inv.SetMethodName("GetOrder")
	return rpcinfo.NewCtxWithRPCInfo(context.Background(), ri)
}

// An endpoint called bare, through a middleware that does nothing and
// through the adapter, in a server call's context: the adapter's cost is
// the difference between the last two.
func BenchmarkKitex(b *testing.B) {
	ep := func(ctx context.Context, req, resp any) error { return nil }
	for _, bc := range []struct {
		name string
		mw   []endpoint.Middleware
	}{
		{"bare", nil},
		{"noop", []endpoint.Middleware{func(next endpoint.Endpoint) endpoint.Endpoint { return next }}},
		{"sentinelkitex", []endpoint.Middleware{sentinelkitex.ServerMiddleware()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := endpoint.Chain(bc.mw...)(ep)
			ctx := serverContext()
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				if err := h(ctx, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
			stop()
		})
	}
}

// BenchmarkEntryExit is a plain runtime.Entry and Exit, in this binary:
// the yardstick the adapter's cost over the framework is read against.
func BenchmarkEntryExit(b *testing.B) { webtest.BenchEntryExit(b) }

// BenchmarkKitexRefused is BenchmarkKitex's adapter case with a flow rule
// that refuses every call.
func BenchmarkKitexRefused(b *testing.B) {
	webtest.Refuse(b, "OrderService/GetOrder")
	h := sentinelkitex.ServerMiddleware()(func(ctx context.Context, req, resp any) error { return nil })
	ctx := serverContext()
	if err := h(ctx, nil, nil); err == nil {
		b.Fatal("admitted")
	}
	b.ReportAllocs()
	stop := webtest.CPUTimer(b)
	for b.Loop() {
		_ = h(ctx, nil, nil)
	}
	stop()
}
