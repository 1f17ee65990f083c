package sentinelhertz

import (
	"context"
	"sync/atomic"

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
	var names *clientNames
	if cfg.cleaner == nil {
		names = new(clientNames)
	}
	return func(next client.Endpoint) client.Endpoint {
		return func(ctx context.Context, req *protocol.Request, resp *protocol.Response) error {
			var res *runtime.Resource
			name := ""
			if names != nil {
				res, name = names.get(req)
			} else {
				name = cfg.resourceName(req)
			}
			if name == "" {
				return next(ctx, req, resp) // not protected
			}
			opts := [3]runtime.EntryOption{
				runtime.WithTrafficType(runtime.Outbound),
				runtime.WithResourceType(runtime.Web),
			}
			n := 2
			if cfg.args != nil && web.NeedsArgs(res, name) {
				opts[2] = runtime.WithArgs(cfg.args(req)...)
				n = 3
			}
			var e *runtime.SentinelEntry
			var b *runtime.BlockError
			if res != nil {
				e, b = res.Entry(ctx, opts[:n]...)
			} else {
				e, b = runtime.Entry(ctx, name, opts[:n]...)
			}
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
	target := targetOf(uri.Scheme(), uri.Host(), uri.Path())
	if c.cleaner != nil {
		if target = c.cleaner(req, target); target == "" {
			return ""
		}
	}
	return methodOf(req.Method()) + ":" + target
}

// targetOf is "scheme://host/path", "/" for an empty path.
func targetOf(scheme, host, path []byte) string {
	if len(path) == 0 {
		path = slash
	}
	return string(scheme) + "://" + string(host) + string(path)
}

var slash = []byte("/")

// clientNames holds the resource names of recent requests, and their
// resources, when no cleaner rewrites them: a name depends on the
// request's method and URL alone, which a request is compared with
// without building its name. Slots are picked by a few bytes of the host
// and path, each taken by the first name that lands in it and replaced
// on one miss in 64, so that URLs called once (IDs in paths, which a
// cleaner should fold) cannot hold the slots for good; a request that
// misses builds its name, as without the slots.
type clientNames struct {
	slots  [clientNameSlots]atomic.Pointer[clientName]
	misses atomic.Uint64
}

const clientNameSlots = 256 // a power of two

// maxClientNameBytes bounds the names the slots keep, and so their memory
// (256 KiB at most), whatever URLs the service is made to call.
const maxClientNameBytes = 1 << 10

// clientName is "METHOD:scheme://host/path" and where its parts end.
type clientName struct {
	name                 string
	method, scheme, host int // the ends of "METHOD", "METHOD:scheme", "METHOD:scheme://host"
	res                  atomic.Pointer[runtime.Resource]
}

func (n *clientName) matches(method string, scheme, host, path []byte) bool {
	s := n.name
	if len(path) == 0 {
		path = slash
	}
	return s[:n.method] == method &&
		s[n.method+1:n.scheme] == string(scheme) &&
		s[n.scheme+3:n.host] == string(host) &&
		s[n.host:] == string(path)
}

// get returns req's resource, once one exists and is kept, and its name.
func (c *clientNames) get(req *protocol.Request) (*runtime.Resource, string) {
	uri := req.URI()
	method := methodOf(req.Method())
	scheme, host, path := uri.Scheme(), uri.Host(), uri.Path()
	h := len(host)*31 + len(path)*7 + len(method)
	if n := len(host); n > 0 {
		h += int(host[n-1]) * 5
	}
	if n := len(path); n > 0 {
		h += int(path[n-1])*3 + int(path[n/2]) + int(path[n*3/4])*9
	}
	slot := &c.slots[h&(clientNameSlots-1)]
	old := slot.Load()
	if old != nil && old.matches(method, scheme, host, path) {
		if res := old.res.Load(); res != nil {
			return res, old.name
		}
		if res := runtime.LookupResource(old.name); res != nil && res.Name() == old.name {
			old.res.Store(res) // made by the first call's entry
			return res, old.name
		}
		return nil, old.name
	}
	target := targetOf(scheme, host, path)
	name := method + ":" + target
	if len(name) > maxClientNameBytes {
		return nil, name
	}
	if old == nil || c.misses.Add(1)%64 == 0 {
		slot.CompareAndSwap(old, &clientName{
			name:   name,
			method: len(method),
			scheme: len(method) + 1 + len(scheme),
			host:   len(method) + 1 + len(scheme) + 3 + len(host),
		})
	}
	return nil, name
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
