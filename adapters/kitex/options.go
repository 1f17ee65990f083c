package sentinelkitex

import (
	"context"

	"github.com/cloudwego/kitex/pkg/rpcinfo"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Option configures ServerMiddleware and ClientMiddleware.
type Option func(*config)

type config struct {
	resourceName  func(ctx context.Context, ri rpcinfo.RPCInfo) string
	args          func(ctx context.Context, req any) []any
	origin        func(ctx context.Context, ri rpcinfo.RPCInfo) string
	isError       func(err error) bool
	blockFallback func(ctx context.Context, req, resp any, b *runtime.BlockError) error
}

func newConfig(opts []Option) *config {
	cfg := &config{isError: IsFailure}
	for _, o := range opts {
		o(cfg)
	}
	if cfg.isError == nil {
		cfg.isError = func(error) bool { return false }
	}
	return cfg
}

// WithResourceName names each call's resource instead of "service/method";
// returning "" leaves the call unprotected.
func WithResourceName(name func(ctx context.Context, ri rpcinfo.RPCInfo) string) Option {
	return func(cfg *config) { cfg.resourceName = name }
}

// WithArgs passes arguments to hot-parameter rules on the resource, read
// from the request (Kitex's generated argument struct); fn is called only
// when such a rule applies.
func WithArgs(fn func(ctx context.Context, req any) []any) Option {
	return func(cfg *config) { cfg.args = fn }
}

// WithOriginParser sets how ServerMiddleware reads the caller's origin
// (Sentinel's RequestOriginParser), for authority rules, limitApp and
// per-origin statistics; the runtime keeps at most runtime.MaxOriginBytes
// of it.
func WithOriginParser(parse func(ctx context.Context, ri rpcinfo.RPCInfo) string) Option {
	return func(cfg *config) { cfg.origin = parse }
}

// OriginFromCaller is an origin parser that reads the caller's service
// name, which Kitex clients send with TTHeader.
func OriginFromCaller(_ context.Context, ri rpcinfo.RPCInfo) string {
	if from := ri.From(); from != nil {
		return from.ServiceName()
	}
	return ""
}

// WithErrorClassifier sets which errors of a call are the resource's
// errors, for error-ratio and error-count breakers; IsFailure (every error
// but a business status error) by default, nil for none. A call that
// returned no error but set a business status error is classified by
// that.
func WithErrorClassifier(isError func(err error) bool) Option {
	return func(cfg *config) { cfg.isError = isError }
}

// WithBlockFallback answers refused calls instead of the *Error: it may
// fill resp and return nil.
func WithBlockFallback(fallback func(ctx context.Context, req, resp any, b *runtime.BlockError) error) Option {
	return func(cfg *config) { cfg.blockFallback = fallback }
}
