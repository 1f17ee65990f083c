// Package sentinelkratos protects Kratos (github.com/go-kratos/kratos/v2)
// operations with the sentinelgen runtime, on its HTTP and gRPC transports
// alike, as the gRPC interceptors of runtime/sentinelgrpc protect methods:
//
//	srv := grpc.NewServer(grpc.Middleware(recovery.Recovery(), sentinelkratos.Server()))
//	hs := http.NewServer(http.Middleware(recovery.Recovery(), sentinelkratos.Server()))
//	conn, err := grpc.DialInsecure(ctx, grpc.WithEndpoint(addr), grpc.WithMiddleware(sentinelkratos.Client()))
//
// Each call is a resource named after its operation, the protobuf method
// Kratos routes it by ("/api.order.v1.Order/GetOrder"; WithResourceName
// names it otherwise): inbound in Server, outbound in Client, of type RPC.
//
// A refused call does not reach the handler (in Client, the server): it
// returns a Kratos error with code 429 and reason BlockReason
// (errors.Code(err) == 429; Kratos's gRPC transport answers it with
// RESOURCE_EXHAUSTED, its HTTP transport with 429, and Server adds
// "Retry-After: 1" to an HTTP reply), with the block type in its metadata
// ("blockType": "flow"). The error is built once per block type, so a
// refusal allocates nothing for it; errors.Is(err, runtime.ErrBlocked)
// holds. WithBlockFallback answers refusals instead, with the
// *runtime.BlockError at hand.
//
// A handler's (in Client, the call's) error is the resource's error, for
// circuit breakers, when its Kratos code is 500 or more (a plain error is
// 500 to Kratos, a gRPC status its code's HTTP equivalent;
// WithErrorClassifier decides otherwise), and so is a handler's panic
// (recorded, then let go on to Kratos's recovery middleware, which must
// come before this one): unless the call's context had ended by then, so
// that no caller can open a breaker for other callers by hanging up or
// choosing its own deadline. Kratos's client puts its own timeout (2 s by
// default) on the call's context, so a client call that times out is not
// an error either: a slow-request-ratio breaker is the one for a
// dependency that hangs.
//
// The handler's context carries the entry: pass it to generated wrappers
// and their resources nest under the operation in runtime.Tree.
// WithOriginParser reads the caller's origin (OriginFromHeader reads it
// from a request header or gRPC metadata key), for authority rules,
// limitApp and per-origin statistics.
package sentinelkratos

import (
	"context"

	"github.com/go-kratos/kratos/v2/errors"
	"github.com/go-kratos/kratos/v2/middleware"
	"github.com/go-kratos/kratos/v2/transport"
	khttp "github.com/go-kratos/kratos/v2/transport/http"

	"github.com/sentinelgen/sentinelgen/internal/rpcguard"
	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// BlockReason is the reason of the Kratos error a refused call returns.
const BlockReason = "SENTINEL_BLOCKED"

// Server returns server middleware that protects each operation it runs
// for as an inbound resource.
func Server(opts ...Option) middleware.Middleware {
	cfg := newConfig(opts)
	return func(next middleware.Handler) middleware.Handler {
		return func(ctx context.Context, req any) (any, error) {
			tr, ok := transport.FromServerContext(ctx)
			if !ok {
				return next(ctx, req)
			}
			return cfg.call(ctx, tr, req, next, runtime.Inbound)
		}
	}
}

// Client returns client middleware that protects each operation it calls
// as an outbound resource.
func Client(opts ...Option) middleware.Middleware {
	cfg := newConfig(opts)
	return func(next middleware.Handler) middleware.Handler {
		return func(ctx context.Context, req any) (any, error) {
			tr, ok := transport.FromClientContext(ctx)
			if !ok {
				return next(ctx, req)
			}
			return cfg.call(ctx, tr, req, next, runtime.Outbound)
		}
	}
}

func (c *config) call(ctx context.Context, tr transport.Transporter, req any, next middleware.Handler, traffic runtime.TrafficType) (any, error) {
	name := tr.Operation()
	if c.resourceName != nil {
		name = c.resourceName(ctx, tr, req)
	}
	if name == "" {
		return next(ctx, req) // not protected
	}
	origin := ""
	if c.origin != nil && traffic == runtime.Inbound {
		origin = c.origin(ctx, tr)
	}
	var args func() []any
	if c.args != nil {
		args = func() []any { return c.args(ctx, req) }
	}
	e, b := rpcguard.Enter(ctx, name, origin, traffic, args)
	if b != nil {
		if c.blockFallback != nil {
			return c.blockFallback(ctx, req, b)
		}
		if traffic == runtime.Inbound && tr.Kind() == transport.KindHTTP {
			if ht, ok := tr.(khttp.Transporter); ok {
				ht.ReplyHeader().Set("Retry-After", web.RetryAfter)
			}
		}
		return nil, blockErrors[b.BlockType()]
	}
	done := false
	defer func() {
		if !done {
			rpcguard.Panicked(ctx, e, recover())
		}
	}()
	reply, err := next(e.Context(), req)
	isError := err != nil && c.isError(err) // before done: a classifier's panic exits the entry too
	done = true
	rpcguard.Exit(ctx, e, err, isError)
	return reply, err
}

// ServerError is the default error classifier: a Kratos code of 500 or
// more.
func ServerError(err error) bool { return errors.Code(err) >= 500 }

// blockErrors holds the Kratos error a refusal returns, one per block type.
var blockErrors = func() (errs [runtime.BlockCustom + 1]*errors.Error) {
	for t := range errs {
		bt := runtime.BlockType(t)
		errs[t] = errors.New(429, BlockReason, web.BlockMessage).
			WithMetadata(map[string]string{"blockType": bt.String()}).
			WithCause(runtime.ErrBlocked)
	}
	return errs
}()
