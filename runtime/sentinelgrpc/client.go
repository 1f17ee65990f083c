package sentinelgrpc

import (
	"context"

	"google.golang.org/grpc"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// UnaryClientInterceptor protects every unary call a client makes as an
// outbound RPC resource named after the full method
// ("/pkg.Service/Method"):
//
//	conn, err := grpc.NewClient(target, grpc.WithChainUnaryInterceptor(sentinelgrpc.UnaryClientInterceptor()), ...)
//
// A refused call never reaches the network: it returns a *BlockedError
// (codes.ResourceExhausted, and errors.Is(err, runtime.ErrBlocked)), or
// what WithFallback returns. A call the server's Sentinel refused returns a
// *BlockedError too, with Remote set. The entry is opened in the call's context, so
// a call made from within a protected method nests under it.
func UnaryClientInterceptor(opts ...ClientOption) grpc.UnaryClientInterceptor {
	cfg := newClientConfig(opts)
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, callOpts ...grpc.CallOption) error {
		e, b := cfg.entry(ctx, method, req, runtime.Outbound)
		if b != nil {
			if cfg.fallback != nil {
				return cfg.fallback(ctx, method, req, reply, cc, b)
			}
			return BlockStatus(b)
		}
		done := false
		defer func() {
			if !done {
				exitPanicking(ctx, e, recover())
			}
		}()
		err := remoteBlocked(invoker(ctx, method, req, reply, cc, callOpts...))
		done = true
		exit(e, cfg.traced(ctx, err))
		return err
	}
}

// StreamClientInterceptor protects every stream a client opens as an
// outbound RPC resource named after the full method. The entry spans the
// stream and exits exactly once, at the first of: RecvMsg returning io.EOF
// (or the one response of a client-streaming call), RecvMsg or SendMsg
// returning another error, opening the stream failing, and the call's
// context ending. A refused stream is never opened: the interceptor returns
// a *BlockedError, or what WithStreamFallback returns.
//
// As gRPC itself requires, a caller must read the stream to its end or
// cancel its context; a stream abandoned otherwise keeps its entry open.
func StreamClientInterceptor(opts ...ClientOption) grpc.StreamClientInterceptor {
	cfg := newClientConfig(opts)
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, callOpts ...grpc.CallOption) (grpc.ClientStream, error) {
		e, view, b := cfg.enterStream(ctx, method)
		if b != nil {
			if cfg.streamFallback != nil {
				return cfg.streamFallback(ctx, desc, cc, method, b)
			}
			return nil, BlockStatus(b)
		}
		done := false
		defer func() {
			if !done {
				exitPanicking(ctx, e, recover())
			}
		}()
		cs, err := streamer(ctx, desc, cc, method, callOpts...)
		done = true
		if err != nil {
			err = remoteBlocked(err)
			exit(e, cfg.traced(ctx, err))
			return nil, err
		}
		return view.start(cs, ctx, e, &cfg.commonConfig, desc.ServerStreams), nil
	}
}
