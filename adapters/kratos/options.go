package sentinelkratos

import (
	"context"
	"strings"

	"github.com/go-kratos/kratos/v2/transport"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Option configures Server and Client.
type Option func(*config)

type config struct {
	resourceName  func(ctx context.Context, tr transport.Transporter, req any) string
	args          func(ctx context.Context, req any) []any
	origin        func(ctx context.Context, tr transport.Transporter) string
	isError       func(err error) bool
	blockFallback func(ctx context.Context, req any, b *runtime.BlockError) (any, error)
}

func newConfig(opts []Option) *config {
	cfg := &config{isError: ServerError}
	for _, o := range opts {
		o(cfg)
	}
	if cfg.isError == nil {
		cfg.isError = func(error) bool { return false }
	}
	return cfg
}

// WithResourceName names each call's resource instead of its operation;
// returning "" leaves the call unprotected.
func WithResourceName(name func(ctx context.Context, tr transport.Transporter, req any) string) Option {
	return func(cfg *config) { cfg.resourceName = name }
}

// WithArgs passes arguments to hot-parameter rules on the resource, read
// from the request message; fn is called only when such a rule applies.
func WithArgs(fn func(ctx context.Context, req any) []any) Option {
	return func(cfg *config) { cfg.args = fn }
}

// WithOriginParser sets how Server reads the caller's origin (Sentinel's
// RequestOriginParser), for authority rules, limitApp and per-origin
// statistics; the runtime keeps at most runtime.MaxOriginBytes of it.
func WithOriginParser(parse func(ctx context.Context, tr transport.Transporter) string) Option {
	return func(cfg *config) { cfg.origin = parse }
}

// OriginFromHeader returns an origin parser that reads the named request
// header (HTTP) or metadata key (gRPC).
func OriginFromHeader(name string) func(ctx context.Context, tr transport.Transporter) string {
	lower := strings.ToLower(name)
	return func(_ context.Context, tr transport.Transporter) string {
		if tr.Kind() == transport.KindGRPC {
			return tr.RequestHeader().Get(lower)
		}
		return tr.RequestHeader().Get(name)
	}
}

// WithErrorClassifier sets which errors of the handler (in Client, of the
// call) are the resource's errors, for error-ratio and error-count
// breakers; ServerError (a Kratos code of 500 or more) by default, nil
// for none.
func WithErrorClassifier(isError func(err error) bool) Option {
	return func(cfg *config) { cfg.isError = isError }
}

// WithBlockFallback answers refused calls instead of the 429 Kratos error:
// its reply and error are the call's.
func WithBlockFallback(fallback func(ctx context.Context, req any, b *runtime.BlockError) (any, error)) Option {
	return func(cfg *config) { cfg.blockFallback = fallback }
}
