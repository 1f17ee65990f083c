package compare

import (
	"context"
	"testing"

	"github.com/cloudwego/kitex/pkg/endpoint"
	"github.com/cloudwego/kitex/pkg/rpcinfo"

	sentinelkitex "github.com/sentinelgen/sentinelgen/adapters/kitex"
)

// The server and client middleware.
var (
	kitexAdapters       = []adapter[endpoint.Middleware]{{impl: "ours", middleware: func() endpoint.Middleware { return sentinelkitex.ServerMiddleware() }, resource: "OrderService/GetOrder"}}
	kitexClientAdapters = []adapter[endpoint.Middleware]{{impl: "ours", middleware: func() endpoint.Middleware { return sentinelkitex.ClientMiddleware() }, resource: "OrderService/GetOrder"}}
)

// kitexServerContext is the context Kitex's server gives each call's
// middleware: its RPCInfo, with the invocation and the callee (the
// destination, for a client call).
func kitexServerContext() context.Context {
	ri := rpcinfo.NewRPCInfo(rpcinfo.EmptyEndpointInfo(),
		rpcinfo.NewEndpointInfo("OrderService", "GetOrder", nil, nil),
		rpcinfo.NewServerInvocation(), rpcinfo.NewRPCConfig(), rpcinfo.NewRPCStats())
	inv := ri.Invocation().(rpcinfo.InvocationSetter)
	inv.SetServiceName("OrderService")
	inv.SetMethodName("GetOrder")
	return rpcinfo.NewCtxWithRPCInfo(context.Background(), ri)
}

// BenchmarkKitex is a server middleware around an endpoint, called in a
// server call's context.
func BenchmarkKitex(b *testing.B) { benchKitex(b, kitexAdapters) }

// BenchmarkKitexClient is a client middleware around an endpoint that
// answers without sending, called in a context with the destination.
func BenchmarkKitexClient(b *testing.B) { benchKitex(b, kitexClientAdapters) }

func benchKitex(b *testing.B, adapters []adapter[endpoint.Middleware]) {
	ep := func(ctx context.Context, req, resp any) error { return nil }
	serve := func(mw endpoint.Middleware) func() int {
		h := mw(ep)
		ctx := kitexServerContext()
		return func() int {
			if h(ctx, nil, nil) != nil {
				return rpcError
			}
			return rpcOK
		}
	}
	noop := func(next endpoint.Endpoint) endpoint.Endpoint {
		return func(ctx context.Context, req, resp any) error { return next(ctx, req, resp) }
	}
	benchFramework(b, serve, noop, rpcOK, rpcError, adapters)
}
