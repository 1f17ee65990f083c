package compare

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc"
)

const grpcMethod = "/compare.Service/Call"

// grpcAdapters are the unary server interceptors; the sentinelgolang
// build adds sentinel-golang's.
var grpcAdapters = []adapter[grpc.UnaryServerInterceptor]{{impl: "ours", middleware: func() grpc.UnaryServerInterceptor { return sentinelgrpc.UnaryServerInterceptor() }, resource: grpcMethod}}

// BenchmarkGRPCUnary is the unary server interceptor alone, with grpc-go's
// reading of the status it returns. A refusal's code is the
// implementation's: ours RESOURCE_EXHAUSTED with an ErrorInfo detail,
// sentinel-golang's its BlockError, which grpc-go sends as UNKNOWN.
func BenchmarkGRPCUnary(b *testing.B) {
	info := &grpc.UnaryServerInfo{FullMethod: grpcMethod}
	handler := func(ctx context.Context, req any) (any, error) { return req, nil }
	serve := func(intercept grpc.UnaryServerInterceptor) func() int {
		return func() int {
			_, err := intercept(context.Background(), nil, info, handler)
			if status.Code(err) != 0 { // what grpc-go reads of the error, to send
				return rpcError
			}
			return rpcOK
		}
	}
	noop := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		return h(ctx, req)
	}
	benchFramework(b, serve, noop, rpcOK, rpcError, grpcAdapters)
}
