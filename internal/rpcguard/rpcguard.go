// Package rpcguard is the per-call logic that the adapters of RPC
// frameworks whose middleware wraps one call (Kratos, Kitex) share: enter
// the call's resource, with the caller's origin and hot-parameter
// arguments, and record how the call ended by the caller-abort rule.
//
//	e, b := rpcguard.Enter(ctx, name, origin, traffic, args)
//	if b != nil {
//		return refusal(b)
//	}
//	done := false
//	defer func() {
//		if !done {
//			rpcguard.Panicked(ctx, e, recover())
//		}
//	}()
//	err := next(e.Context(), ...)
//	classified := err != nil && isError(err) // may panic: before done
//	done = true
//	rpcguard.Exit(ctx, e, err, classified)
package rpcguard

import (
	"context"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// Enter opens resource name's entry for a call of the given traffic: in
// the default Sentinel context with origin, when there is one (which then
// lives in the entry's allocation), and with the arguments args returns
// when a hot-parameter rule applies to the resource (args may be nil).
func Enter(ctx context.Context, name, origin string, traffic runtime.TrafficType, args func() []any) (*runtime.SentinelEntry, *runtime.BlockError) {
	opts := [3]runtime.EntryOption{
		runtime.WithTrafficType(traffic),
		runtime.WithResourceType(runtime.RPC),
	}
	n := 2
	if args != nil && web.NeedsArgs(nil, name) {
		opts[2] = runtime.WithArgs(args()...)
		n = 3
	}
	if origin == "" {
		return runtime.Entry(ctx, name, opts[:n]...)
	}
	if res := runtime.LookupResource(name); res != nil {
		return res.EntryInContext(ctx, runtime.DefaultContextName, origin, opts[:n]...)
	}
	return runtime.Entry(runtime.EnterContext(ctx, runtime.DefaultContextName, origin), name, opts[:n]...)
}

// Exit exits e after a call that returned err, recording err as the
// resource's error when isError held for it, unless the caller's context
// ctx had ended by then: no caller can open a breaker for other callers by
// hanging up or choosing its own deadline.
func Exit(ctx context.Context, e *runtime.SentinelEntry, err error, isError bool) {
	if err != nil && isError && !web.ContextEnded(ctx) {
		e.SetError(err)
	}
	e.Exit()
}

// Panicked exits e after its call ended early: with the panic p, which it
// records (unless ctx had ended) and raises again; or, when p is nil, by
// runtime.Goexit, which the entry just exits for.
func Panicked(ctx context.Context, e *runtime.SentinelEntry, p any) {
	if p != nil && !web.ContextEnded(ctx) {
		e.SetError(&web.PanicError{Value: p})
	}
	e.Exit()
	if p != nil {
		panic(p)
	}
}
