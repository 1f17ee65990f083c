// Package sentinelkitex protects Kitex (github.com/cloudwego/kitex) calls
// with the sentinelgen runtime, on the server and on the client, as the
// gRPC interceptors of runtime/sentinelgrpc protect methods:
//
//	svr := orderservice.NewServer(handler, server.WithMiddleware(sentinelkitex.ServerMiddleware()))
//	cli, err := orderservice.NewClient("OrderService", client.WithMiddleware(sentinelkitex.ClientMiddleware()))
//
// Each call is a resource named "service/method" ("OrderService/GetOrder";
// WithResourceName names it otherwise), of type RPC: inbound on the
// server, from the invocation; outbound on the client, from its
// destination.
//
// A refused call does not reach the handler (on the client, the server):
// it returns an *Error of its block type (errors.Is(err,
// runtime.ErrBlocked) holds; a client of a refusing server gets a remote
// error with the block message), one value per block type, so a refusal
// allocates nothing for it. WithBlockFallback answers refusals instead,
// with the *runtime.BlockError at hand.
//
// An error of the call is the resource's error, for circuit breakers: a
// handler's error or panic, which Kitex's server recovers and returns as
// kerrors.ErrBiz and kerrors.ErrPanic, and on the client any failure of
// the call; a business status error (kerrors.NewBizStatusError) is an
// answer, not a failure, unless WithErrorClassifier says otherwise. Nothing
// counts once the caller's context has ended, so that no caller can open a
// breaker for other callers by hanging up or choosing its own deadline.
//
// The handler's context carries the entry: pass it to generated wrappers
// and their resources nest under the call in runtime.Tree. The caller's
// origin, for authority rules, limitApp and per-origin statistics, is none
// unless WithOriginParser reads one (OriginFromCaller reads the caller's
// service name, which TTHeader carries).
package sentinelkitex

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/cloudwego/kitex/pkg/endpoint"
	"github.com/cloudwego/kitex/pkg/kerrors"
	"github.com/cloudwego/kitex/pkg/rpcinfo"

	"github.com/sentinelgen/sentinelgen/internal/rpcguard"
	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// ServerMiddleware returns Kitex server middleware that protects each call
// it serves as an inbound resource.
func ServerMiddleware(opts ...Option) endpoint.Middleware {
	cfg := newConfig(opts)
	return func(next endpoint.Endpoint) endpoint.Endpoint {
		return func(ctx context.Context, req, resp any) error {
			ri := rpcinfo.GetRPCInfo(ctx)
			if ri == nil {
				return next(ctx, req, resp)
			}
			inv := ri.Invocation()
			return cfg.call(ctx, ri, inv.ServiceName(), inv.MethodName(), req, resp, next, runtime.Inbound)
		}
	}
}

// ClientMiddleware returns Kitex client middleware that protects each call
// it sends as an outbound resource named after its destination.
func ClientMiddleware(opts ...Option) endpoint.Middleware {
	cfg := newConfig(opts)
	return func(next endpoint.Endpoint) endpoint.Endpoint {
		return func(ctx context.Context, req, resp any) error {
			ri := rpcinfo.GetRPCInfo(ctx)
			if ri == nil {
				return next(ctx, req, resp)
			}
			to := ri.To()
			return cfg.call(ctx, ri, to.ServiceName(), to.Method(), req, resp, next, runtime.Outbound)
		}
	}
}

func (c *config) call(ctx context.Context, ri rpcinfo.RPCInfo, service, method string, req, resp any, next endpoint.Endpoint, traffic runtime.TrafficType) error {
	var name string
	var res *runtime.Resource
	if c.resourceName != nil {
		name = c.resourceName(ctx, ri)
		res = rpcguard.Resource(name)
	} else {
		name, res = resourceOf(service, method)
	}
	if name == "" {
		return next(ctx, req, resp) // not protected
	}
	origin := ""
	if c.origin != nil && traffic == runtime.Inbound {
		origin = c.origin(ctx, ri)
	}
	var args func() []any
	if c.args != nil {
		args = func() []any { return c.args(ctx, req) }
	}
	e, b := rpcguard.EnterResource(ctx, res, name, origin, traffic, args)
	if b != nil {
		if c.blockFallback != nil {
			return c.blockFallback(ctx, req, resp, b)
		}
		return &blockErrors[b.BlockType()]
	}
	done := false
	defer func() {
		if !done {
			rpcguard.Panicked(ctx, e, recover())
		}
	}()
	err := next(e.Context(), req, resp)
	outcome := err
	if outcome == nil {
		if biz := ri.Invocation().BizStatusErr(); biz != nil {
			outcome = biz
		}
	}
	isError := outcome != nil && c.isError(outcome) // before done: a classifier's panic exits the entry too
	done = true
	rpcguard.Exit(ctx, e, outcome, isError)
	return err
}

// resourceOf is resourceName and its resource (nil while it does not
// exist), found together in the slots of recent names.
func resourceOf(service, method string) (string, *runtime.Resource) {
	if service == "" {
		return method, rpcguard.Resource(method)
	}
	slot := recentName(service, method)
	if r := slot.Load(); r != nil && r.method == method && r.service == service {
		if res := r.res.Load(); res != nil {
			return r.name, res
		}
		res := rpcguard.Resource(r.name)
		if res != nil && res.Name() == r.name { // not the runtime's overflow resource
			r.res.Store(res)
		}
		return r.name, res
	}
	name := resourceName(service, method)
	return name, rpcguard.Resource(name)
}

// resourceName is "service/method", without allocating for a pair named
// before. Method names come off the wire (a generic server takes any), so
// the names kept are capped; past the cap a name is built per call, and
// the runtime's own cap on resources applies to it.
//
// In front of the kept names, recentNames holds names in slots picked by
// a hash of a few bytes of the method, each taken by the first pair that
// lands in it and replaced only on one miss in 64, so that pairs a client
// sent once cannot hold the slots for good: a call finds its name there
// with two comparisons, which for Kitex's own strings are pointer
// comparisons, instead of hashing the pair; the slot keeps the name's
// resource too, once it exists.
func resourceName(service, method string) string {
	if service == "" {
		return method
	}
	slot := recentName(service, method)
	if r := slot.Load(); r != nil && r.method == method && r.service == service {
		return r.name
	}
	key := serviceMethod{service, method}
	if name, ok := names.Load(key); ok {
		if old := slot.Load(); old == nil || nameMisses.Add(1)%64 == 0 {
			slot.CompareAndSwap(old, &serviceMethodName{serviceMethod: key, name: name.(string)})
		}
		return name.(string)
	}
	name := service + "/" + method
	if namesKept.Add(1) <= maxNames {
		names.Store(key, name)
	}
	return name
}

// nameMisses counts lookups that missed a taken slot.
var nameMisses atomic.Uint64

type serviceMethod struct{ service, method string }

// serviceMethodName is a slot's pair, its name and resource: read on every
// call, it is padded to two cache lines of its own, which the processor
// fetches together, so that no object written per call shares them.
type serviceMethodName struct {
	serviceMethod
	name string
	res  atomic.Pointer[runtime.Resource]
	_    [128 - 56]byte
}

var recentNames [64]atomic.Pointer[serviceMethodName]

func recentName(service, method string) *atomic.Pointer[serviceMethodName] {
	n := len(method)
	if n == 0 {
		return &recentNames[0]
	}
	return &recentNames[(n*7+int(method[n-1])*3+int(method[n/2])+len(service))&(len(recentNames)-1)]
}

// maxNames caps the names resourceName keeps.
const maxNames = 4096

var (
	names     sync.Map // serviceMethod → "service/method"
	namesKept atomic.Int64
)

// IsFailure is the default error classifier: every error but a business
// status error (kerrors.NewBizStatusError), which is an answer.
func IsFailure(err error) bool {
	_, biz := kerrors.FromBizStatusError(err)
	return !biz
}

// Error is the error a refused call returns: one value per block type.
type Error struct {
	BlockType runtime.BlockType
}

func (e *Error) Error() string { return web.BlockMessage + " (" + e.BlockType.String() + ")" }

// Is reports whether target is runtime.ErrBlocked.
func (e *Error) Is(target error) bool { return target == runtime.ErrBlocked }

var blockErrors = func() (errs [runtime.BlockCustom + 1]Error) {
	for t := range errs {
		errs[t].BlockType = runtime.BlockType(t)
	}
	return errs
}()
