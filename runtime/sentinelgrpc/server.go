package sentinelgrpc

import (
	"context"
	"errors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// UnaryServerInterceptor protects every unary method of a server as an
// inbound RPC resource named after the full method ("/pkg.Service/Method"):
//
//	srv := grpc.NewServer(grpc.ChainUnaryInterceptor(sentinelgrpc.UnaryServerInterceptor()))
//
// A refused call does not reach the handler: the client gets
// codes.ResourceExhausted (a *BlockedError), or what WithBlockHandler
// returns. The handler's context carries the entry, so generated wrappers
// called with it nest under the method in the call tree.
func UnaryServerInterceptor(opts ...ServerOption) grpc.UnaryServerInterceptor {
	cfg := newServerConfig(opts)
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		e, b := cfg.enter(ctx, info.FullMethod, req)
		if b != nil {
			if cfg.blockHandler != nil {
				return cfg.blockHandler(ctx, req, info, b)
			}
			return nil, BlockStatus(b)
		}
		done := false
		defer func() {
			if !done {
				exitPanicking(e, recover())
			}
		}()
		resp, err := handler(e.Context(), req)
		done = true
		e.Exit(runtime.WithError(cfg.traced(ctx, err)))
		return resp, blockedStatus(err)
	}
}

// StreamServerInterceptor protects every streaming method of a server as
// an inbound RPC resource named after the full method. The entry spans the
// stream: it opens before the handler runs and exits once, when the handler
// returns. A refused stream does not reach the handler: it ends with
// codes.ResourceExhausted (a *BlockedError), or what WithStreamBlockHandler
// returns. The stream's Context carries the entry.
func StreamServerInterceptor(opts ...ServerOption) grpc.StreamServerInterceptor {
	cfg := newServerConfig(opts)
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		ctx := ss.Context()
		e, b := cfg.enter(ctx, info.FullMethod, nil)
		if b != nil {
			if cfg.streamBlockHandler != nil {
				return cfg.streamBlockHandler(srv, ss, info, b)
			}
			return BlockStatus(b)
		}
		done := false
		defer func() {
			if !done {
				exitPanicking(e, recover())
			}
		}()
		err := handler(srv, &serverStream{ServerStream: ss, ctx: e.Context()})
		done = true
		e.Exit(runtime.WithError(cfg.traced(ctx, err)))
		return blockedStatus(err)
	}
}

// enter opens the inbound entry of one call. Like Java's adapter it enters
// no named context: the call is in the default context, which carries the
// caller's origin when there is one.
func (cfg *serverConfig) enter(ctx context.Context, method string, req any) (*runtime.SentinelEntry, *runtime.BlockError) {
	if cfg.origin != nil {
		if origin := sanitizeOrigin(cfg.origin(ctx, method)); origin != "" {
			ctx = runtime.EnterContext(ctx, runtime.DefaultContextName, origin)
		}
	}
	return cfg.entry(ctx, method, req, runtime.Inbound)
}

// entry opens an entry of the method's resource with its traffic type,
// passing hot-parameter arguments when a rule reads them.
func (c *commonConfig) entry(ctx context.Context, method string, req any, traffic runtime.TrafficType) (*runtime.SentinelEntry, *runtime.BlockError) {
	opts := [3]runtime.EntryOption{
		runtime.WithTrafficType(traffic),
		runtime.WithResourceType(runtime.RPC),
	}
	n := 2
	res := runtime.LookupResource(method)
	// A resource never entered yet has no rules bound: pass the args, once.
	if c.args != nil && (res == nil || res.NeedsArgs()) {
		opts[2] = runtime.WithArgs(c.args(ctx, method, req)...)
		n = 3
	}
	if res != nil {
		return res.Entry(ctx, opts[:n]...)
	}
	return runtime.Entry(ctx, method, opts[:n]...)
}

// exitPanicking records a handler's panic on its entry, exits the entry and
// lets the panic go on. p is nil after runtime.Goexit: the entry just exits.
func exitPanicking(e *runtime.SentinelEntry, p any) {
	if p == nil {
		e.Exit()
		return
	}
	e.Exit(runtime.WithError(&PanicError{Value: p}))
	panic(p)
}

// serverStream is the handler's view of the stream: its Context carries
// the entry.
type serverStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *serverStream) Context() context.Context { return s.ctx }

// blockedStatus gives a handler's error that is a *runtime.BlockError
// without a gRPC status (a generated wrapper without a block handler, refused
// within the handler) the ResourceExhausted status, which grpc-go would
// otherwise send as Unknown. Other errors are returned as they are.
func blockedStatus(err error) error {
	if err == nil {
		return nil
	}
	var b *runtime.BlockError
	if !errors.As(err, &b) {
		return err
	}
	if _, ok := status.FromError(err); ok {
		return err // the handler chose a status
	}
	return &BlockedError{Block: b}
}
