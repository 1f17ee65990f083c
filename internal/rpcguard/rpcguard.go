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
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// Enter opens resource name's entry for a call of the given traffic: in
// the default Sentinel context with origin, when there is one (which then
// lives in the entry's allocation), and with the arguments args returns
// when a hot-parameter rule applies to the resource (args may be nil).
func Enter(ctx context.Context, name, origin string, traffic runtime.TrafficType, args func() []any) (*runtime.SentinelEntry, *runtime.BlockError) {
	return EnterResource(ctx, Resource(name), name, origin, traffic, args)
}

// EnterResource is Enter for a caller that has looked up res, the
// resource named name (nil when it does not exist yet).
func EnterResource(ctx context.Context, res *runtime.Resource, name, origin string, traffic runtime.TrafficType, args func() []any) (*runtime.SentinelEntry, *runtime.BlockError) {
	opts := outboundOptions[:]
	if traffic == runtime.Inbound {
		opts = inboundOptions[:]
	}
	var withArgs [3]runtime.EntryOption
	if args != nil && web.NeedsArgs(res, name) {
		withArgs = [3]runtime.EntryOption{opts[0], opts[1], runtime.WithArgs(args()...)}
		opts = withArgs[:]
	}
	switch {
	case res != nil && origin == "":
		return res.Entry(ctx, opts...)
	case res != nil:
		return res.EntryInContext(ctx, runtime.DefaultContextName, origin, opts...)
	case origin == "":
		return runtime.Entry(ctx, name, opts...) // the first call: it makes the resource
	}
	return runtime.Entry(runtime.EnterContext(ctx, runtime.DefaultContextName, origin), name, opts...)
}

// The entry options of inbound and outbound calls, built once.
var (
	inboundOptions  = [...]runtime.EntryOption{runtime.WithTrafficType(runtime.Inbound), runtime.WithResourceType(runtime.RPC)}
	outboundOptions = [...]runtime.EntryOption{runtime.WithTrafficType(runtime.Outbound), runtime.WithResourceType(runtime.RPC)}
)

// The resources of recent calls' names, in slots picked by a hash of a few
// of the name's bytes, each taken by the first name that lands in it and
// replaced only on one miss in 64, so that names a client sent once
// cannot hold the slots of the names it calls for good: a call finds its resource there with one comparison,
// which for the framework's own name string is a pointer comparison,
// instead of the runtime's lookup by name.
var recent [recentSlots]atomic.Pointer[named]

type named struct {
	name string
	res  *runtime.Resource
}

const recentSlots = 256 // a power of two

func recentSlot(name string) *atomic.Pointer[named] {
	n := len(name)
	if n == 0 {
		return &recent[0]
	}
	return &recent[(n*7+int(name[n-1])*3+int(name[n/2])+int(name[n*3/4])*5+int(name[n/4])*9)&(recentSlots-1)]
}

// Resource is runtime.LookupResource(name), found in the slots of recent
// names when one holds it. It may be the runtime's overflow resource, past
// its cap on resources, whose name is not name.
func Resource(name string) *runtime.Resource {
	slot := recentSlot(name)
	r := slot.Load()
	if r != nil && r.name == name {
		return r.res
	}
	res := runtime.LookupResource(name)
	if r == nil || misses.Add(1)%64 == 0 {
		remember(slot, r, name, res)
	}
	return res
}

// misses counts lookups that missed a taken slot.
var misses atomic.Uint64

// remember keeps res (nil when unknown) in slot, the slot of name, in
// place of old, when it is the resource named name (not the runtime's
// overflow resource).
func remember(slot *atomic.Pointer[named], old *named, name string, res *runtime.Resource) {
	if res != nil && res.Name() == name {
		slot.CompareAndSwap(old, &named{name: name, res: res})
	}
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
