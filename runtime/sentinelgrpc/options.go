package sentinelgrpc

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// ServerOption configures UnaryServerInterceptor and StreamServerInterceptor.
type ServerOption interface {
	applyServer(*serverConfig)
}

// ClientOption configures UnaryClientInterceptor and StreamClientInterceptor.
type ClientOption interface {
	applyClient(*clientConfig)
}

// SharedOption configures servers and clients alike: it is a ServerOption
// and a ClientOption.
type SharedOption struct {
	apply func(*commonConfig)
}

func (o SharedOption) applyServer(c *serverConfig) { o.applyCommon(&c.commonConfig) }
func (o SharedOption) applyClient(c *clientConfig) { o.applyCommon(&c.commonConfig) }

func (o SharedOption) applyCommon(c *commonConfig) {
	if o.apply != nil { // the zero SharedOption does nothing
		o.apply(c)
	}
}

type serverOption func(*serverConfig)

func (o serverOption) applyServer(c *serverConfig) { o(c) }

type clientOption func(*clientConfig)

func (o clientOption) applyClient(c *clientConfig) { o(c) }

// commonConfig is what every interceptor reads.
type commonConfig struct {
	args      func(ctx context.Context, fullMethod string, req any) []any
	errorCode func(code codes.Code) bool
}

func defaultCommon() commonConfig {
	return commonConfig{errorCode: ServerError}
}

type serverConfig struct {
	commonConfig
	origin             func(ctx context.Context, fullMethod string) string
	blockHandler       func(ctx context.Context, req any, info *grpc.UnaryServerInfo, b *runtime.BlockError) (any, error)
	streamBlockHandler func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, b *runtime.BlockError) error
}

func newServerConfig(opts []ServerOption) serverConfig {
	cfg := serverConfig{commonConfig: defaultCommon()}
	for _, o := range opts {
		if o != nil {
			o.applyServer(&cfg)
		}
	}
	return cfg
}

type clientConfig struct {
	commonConfig
	fallback       func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, b *runtime.BlockError) error
	streamFallback func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, b *runtime.BlockError) (grpc.ClientStream, error)
}

func newClientConfig(opts []ClientOption) clientConfig {
	cfg := clientConfig{commonConfig: defaultCommon()}
	for _, o := range opts {
		if o != nil {
			o.applyClient(&cfg)
		}
	}
	return cfg
}

// WithArgs passes arguments to hot-parameter rules on the method's resource
// (Java's SphU.entry args), read from the request message:
//
//	sentinelgrpc.WithArgs(func(ctx context.Context, method string, req any) []any {
//		if r, ok := req.(*pb.ListOrdersRequest); ok {
//			return []any{r.GetUser()}
//		}
//		return nil
//	})
//
// fn is called, and its result boxed, only when a hot-parameter rule applies
// to the resource (runtime.Resource.NeedsArgs), so calls to other methods
// pay nothing. Unary calls pass the request message. A stream's entry opens
// before any message is sent or received, so for streams req is nil and fn
// can read only the context (metadata) and the method. By default no
// arguments are passed.
func WithArgs(fn func(ctx context.Context, fullMethod string, req any) []any) SharedOption {
	return SharedOption{func(c *commonConfig) { c.args = fn }}
}

// WithErrorCode sets which status codes are recorded on the entry as
// errors, for error-ratio and error-count circuit breakers. The default is
// ServerError. nil records no error. Whatever the predicate says, a call
// whose context the caller cancelled records nothing (see the package
// documentation).
func WithErrorCode(isError func(code codes.Code) bool) SharedOption {
	return SharedOption{func(c *commonConfig) { c.errorCode = isError }}
}

// WithErrorCodes is WithErrorCode for a fixed set of codes.
func WithErrorCodes(cs ...codes.Code) SharedOption {
	var set [maxCode + 1]bool
	for _, c := range cs {
		if c <= maxCode {
			set[c] = true
		}
	}
	return WithErrorCode(func(c codes.Code) bool { return c <= maxCode && set[c] })
}

// maxCode is the highest code gRPC defines (Unauthenticated).
const maxCode = codes.Unauthenticated

// WithOriginParser sets how the caller's origin is read from an inbound
// call (Sentinel's RequestOriginParser); ctx is the call's incoming
// context, with its metadata. The origin feeds authority rules, flow rules'
// limitApp and per-origin statistics. What the parser returns is bounded
// like a metadata value (MaxOriginLen, printable ASCII). By default there
// is no origin.
func WithOriginParser(parse func(ctx context.Context, fullMethod string) string) ServerOption {
	return serverOption(func(c *serverConfig) { c.origin = parse })
}

// WithOriginKey reads the caller's origin from the first value of the named
// metadata key: WithOriginParser(OriginFromMetadata(key)).
func WithOriginKey(key string) ServerOption {
	return WithOriginParser(OriginFromMetadata(key))
}

// WithBlockHandler answers refused unary calls on the server instead of
// the ResourceExhausted status: what it returns is what the client gets.
// The handler is not called; BlockStatus gives the default error.
func WithBlockHandler(h func(ctx context.Context, req any, info *grpc.UnaryServerInfo, b *runtime.BlockError) (any, error)) ServerOption {
	return serverOption(func(c *serverConfig) { c.blockHandler = h })
}

// WithStreamBlockHandler answers refused streams on the server instead of
// the ResourceExhausted status. It may use ss to send messages; the stream
// ends with the error it returns.
func WithStreamBlockHandler(h func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, b *runtime.BlockError) error) ServerOption {
	return serverOption(func(c *serverConfig) { c.streamBlockHandler = h })
}

// WithFallback answers refused unary calls on the client: it fills reply,
// or returns the error the call returns, instead of the *BlockedError. The
// call does not reach the network either way.
func WithFallback(fallback func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, b *runtime.BlockError) error) ClientOption {
	return clientOption(func(c *clientConfig) { c.fallback = fallback })
}

// WithStreamFallback answers refused streams on the client: the stream it
// returns (or its error) is what the caller gets instead of the
// *BlockedError.
func WithStreamFallback(fallback func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, b *runtime.BlockError) (grpc.ClientStream, error)) ClientOption {
	return clientOption(func(c *clientConfig) { c.streamFallback = fallback })
}
