package sentinelhertz

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app/client"
	"github.com/cloudwego/hertz/pkg/protocol"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// ClientMiddleware returns Hertz client middleware that protects each
// request as an outbound resource named "METHOD:scheme://host[:port]/path"
// (as runtime/nethttp's Transport names it):
//
//	c, _ := client.NewClient()
//	c.Use(sentinelhertz.ClientMiddleware())
//
// A refused request is not sent: the call returns the *runtime.BlockError
// (errors.Is(err, runtime.ErrBlocked) holds), or what WithClientFallback
// answers. An error from the call and a response status the
// WithClientErrorStatus predicate holds for (5xx by default) are the
// resource's errors, for circuit breakers, unless the call's context had
// ended by then.
func ClientMiddleware(opts ...ClientOption) client.Middleware {
	cfg := clientConfig{errorStatus: nethttp.ServerError}
	for _, o := range opts {
		o(&cfg)
	}
	return func(next client.Endpoint) client.Endpoint {
		return func(ctx context.Context, req *protocol.Request, resp *protocol.Response) error {
			name := cfg.resourceName(req)
			if name == "" {
				return next(ctx, req, resp) // not protected
			}
			opts := [3]runtime.EntryOption{
				runtime.WithTrafficType(runtime.Outbound),
				runtime.WithResourceType(runtime.Web),
			}
			n := 2
			if cfg.args != nil && web.NeedsArgs(nil, name) {
				opts[2] = runtime.WithArgs(cfg.args(req)...)
				n = 3
			}
			e, b := runtime.Entry(ctx, name, opts[:n]...)
			if b != nil {
				if cfg.fallback != nil {
					return cfg.fallback(ctx, req, resp, b)
				}
				return b
			}
			defer func() {
				if p := recover(); p != nil {
					if !web.ContextEnded(ctx) {
						e.SetError(&web.PanicError{Value: p})
					}
					e.Exit()
					panic(p)
				}
				e.Exit()
			}()
			err := next(e.Context(), req, resp)
			switch {
			case web.ContextEnded(ctx):
				// The caller gave up: what is left is not the resource's.
			case err != nil:
				e.SetError(err)
			case cfg.errorStatus != nil && cfg.errorStatus(resp.StatusCode()):
				e.SetError(web.StatusErrorOf(resp.StatusCode()))
			}
			return err
		}
	}
}

// resourceName is "METHOD:scheme://host/path", the URL part passed through
// the cleaner; "" when the cleaner says not to protect req.
func (c *clientConfig) resourceName(req *protocol.Request) string {
	uri := req.URI()
	path := string(uri.Path())
	if path == "" {
		path = "/"
	}
	target := string(uri.Scheme()) + "://" + string(uri.Host()) + path
	if c.cleaner != nil {
		if target = c.cleaner(req, target); target == "" {
			return ""
		}
	}
	return methodOf(req.Method()) + ":" + target
}

// ClientOption configures ClientMiddleware.
type ClientOption func(*clientConfig)

type clientConfig struct {
	cleaner     func(req *protocol.Request, resource string) string
	args        func(req *protocol.Request) []any
	errorStatus func(code int) bool
	fallback    func(ctx context.Context, req *protocol.Request, resp *protocol.Response, b *runtime.BlockError) error
}

// WithClientURLCleaner rewrites the "scheme://host/path" part of the
// resource name, for example to fold path segments that carry IDs into
// one resource; returning "" sends the request unprotected.
func WithClientURLCleaner(clean func(req *protocol.Request, resource string) string) ClientOption {
	return func(cfg *clientConfig) { cfg.cleaner = clean }
}

// WithClientArgs passes arguments to hot-parameter rules on the resource;
// fn is called only when such a rule applies to it.
func WithClientArgs(fn func(req *protocol.Request) []any) ClientOption {
	return func(cfg *clientConfig) { cfg.args = fn }
}

// WithClientErrorStatus sets which response statuses are the resource's
// errors; nethttp.ServerError (5xx) by default, nil for none.
func WithClientErrorStatus(isError func(code int) bool) ClientOption {
	return func(cfg *clientConfig) { cfg.errorStatus = isError }
}

// WithClientFallback answers a refused request instead of the
// *runtime.BlockError (Feign's fallback): it may fill resp and return nil.
func WithClientFallback(fallback func(ctx context.Context, req *protocol.Request, resp *protocol.Response, b *runtime.BlockError) error) ClientOption {
	return func(cfg *clientConfig) { cfg.fallback = fallback }
}
