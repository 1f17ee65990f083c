package sentinelgrpc

import (
	"context"
	"errors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/internal/rpcguard"
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
				exitPanicking(ctx, e, recover())
			}
		}()
		resp, err := handler(e.Context(), req)
		done = true
		exit(e, cfg.traced(ctx, err))
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
		e, view, b := cfg.enterStream(ctx, info.FullMethod)
		if b != nil {
			if cfg.streamBlockHandler != nil {
				return cfg.streamBlockHandler(srv, ss, info, b)
			}
			return BlockStatus(b)
		}
		done := false
		defer func() {
			if !done {
				exitPanicking(ctx, e, recover())
			}
		}()
		*view = serverStream{ServerStream: ss, ctx: e.Context()}
		err := handler(srv, view)
		done = true
		exit(e, cfg.traced(ctx, err))
		return blockedStatus(err)
	}
}

// enter opens the inbound entry of one unary call. Like Java's adapter it
// enters no named context: the call is in the default context, which
// carries the caller's origin when there is one. Once the method's
// resource exists, the Sentinel context of an origin shares the entry's
// allocation.
func (cfg *serverConfig) enter(ctx context.Context, method string, req any) (*runtime.SentinelEntry, *runtime.BlockError) {
	origin := cfg.originOf(ctx, method)
	res := rpcguard.Resource(method)
	if res == nil {
		return cfg.enterFirst(ctx, method, req, origin)
	}
	var buf [3]runtime.EntryOption
	opts := cfg.options(ctx, method, req, res, runtime.Inbound, &buf)
	if origin != "" {
		return res.EntryInContext(ctx, runtime.DefaultContextName, origin, opts...)
	}
	return res.Entry(ctx, opts...)
}

// enterStream is enter for a stream, which also needs the handler's view
// of the stream: once the method's resource exists, the view, the entry
// and the Sentinel context of an origin share one allocation. The view is
// the stream's own and never reused, as the entry is. It is returned zero,
// for the caller to fill once it has the entry.
func (cfg *serverConfig) enterStream(ctx context.Context, method string) (*runtime.SentinelEntry, *serverStream, *runtime.BlockError) {
	origin := cfg.originOf(ctx, method)
	res := rpcguard.Resource(method)
	if res == nil {
		e, b := cfg.enterFirst(ctx, method, nil, origin)
		if b != nil {
			return nil, nil, b
		}
		return e, &serverStream{}, nil
	}
	var buf [3]runtime.EntryOption
	opts := cfg.options(ctx, method, nil, res, runtime.Inbound, &buf)
	if origin != "" {
		return runtime.EntryInContextWith[serverStream](res, ctx, runtime.DefaultContextName, origin, opts...)
	}
	return runtime.EntryWith[serverStream](res, ctx, opts...)
}

// originOf is the caller's origin, "" when unknown or not parsed.
func (cfg *serverConfig) originOf(ctx context.Context, method string) string {
	if cfg.origin == nil {
		return ""
	}
	return sanitizeOrigin(cfg.origin(ctx, method))
}

// enterFirst opens the entry of a call to a method whose resource does not
// exist yet (or never will, past the runtime's resource cap): by name,
// which creates the resource.
func (cfg *serverConfig) enterFirst(ctx context.Context, method string, req any, origin string) (*runtime.SentinelEntry, *runtime.BlockError) {
	if origin != "" {
		ctx = runtime.EnterContext(ctx, runtime.DefaultContextName, origin)
	}
	return cfg.entry(ctx, method, req, runtime.Inbound)
}

// entry opens an entry of the method's resource with its traffic type,
// passing hot-parameter arguments when a rule reads them.
func (c *commonConfig) entry(ctx context.Context, method string, req any, traffic runtime.TrafficType) (*runtime.SentinelEntry, *runtime.BlockError) {
	res := rpcguard.Resource(method)
	var buf [3]runtime.EntryOption
	opts := c.options(ctx, method, req, res, traffic, &buf)
	if res != nil {
		return res.Entry(ctx, opts...)
	}
	return runtime.Entry(ctx, method, opts...)
}

// options are the entry options of a call to the method's resource res (nil
// when it does not exist yet): its traffic type, and the hot-parameter
// arguments when a rule reads them, in buf. Without arguments they are
// built once.
func (c *commonConfig) options(ctx context.Context, method string, req any, res *runtime.Resource, traffic runtime.TrafficType, buf *[3]runtime.EntryOption) []runtime.EntryOption {
	base := &outboundOptions
	if traffic == runtime.Inbound {
		base = &inboundOptions
	}
	// A resource never entered yet has no rules bound: pass the args, once.
	if c.args != nil && (res == nil || res.NeedsArgs()) {
		*buf = [3]runtime.EntryOption{base[0], base[1], runtime.WithArgs(c.args(ctx, method, req)...)}
		return buf[:]
	}
	return base[:]
}

// The entry options of inbound and outbound calls without arguments.
var (
	inboundOptions  = [...]runtime.EntryOption{runtime.WithTrafficType(runtime.Inbound), runtime.WithResourceType(runtime.RPC)}
	outboundOptions = [...]runtime.EntryOption{runtime.WithTrafficType(runtime.Outbound), runtime.WithResourceType(runtime.RPC)}
)

// exit exits e, recording err (nil for none) as the call's error.
func exit(e *runtime.SentinelEntry, err error) {
	if err != nil {
		e.SetError(err)
	}
	e.Exit()
}

// exitPanicking records a handler's panic on its entry, exits the entry and
// lets the panic go on. p is nil after runtime.Goexit: the entry just exits.
// A panic once the call's context ctx ended is what is left of an
// abandoned call, not recorded (the caller-abort rule, as on HTTP).
func exitPanicking(ctx context.Context, e *runtime.SentinelEntry, p any) {
	if p == nil {
		e.Exit()
		return
	}
	if contextEnded(ctx) {
		e.Exit()
	} else {
		e.Exit(runtime.WithError(&PanicError{Value: p}))
	}
	panic(p)
}

// serverStream is the handler's view of the stream: its Context carries
// the entry. It usually lives in the entry's allocation (enterStream).
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
