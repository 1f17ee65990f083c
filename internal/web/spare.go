package web

import (
	"context"
	"sync/atomic"
	"unsafe"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Refusals reuse their memory. An admitted request's entry and per-request
// state (the request copy that carries the entry to the handlers, a status
// writer) are one allocation, made before the rules are asked, since the
// checks work on the entry. A refused request's allocation is left unused:
// the runtime keeps no reference to a refused entry, so Spares keeps it,
// zeroed, for the next request, and under overload, when most requests
// are refused, refusals allocate nothing.

// EntryAnd is an entry and a request's state of type T in one allocation.
// T comes first: a zero-size field last is padded (so that its address
// stays inside the object), which would take an entry alone
// (EntryAnd[struct{}]) from 128 bytes to 136, a size class above.
type EntryAnd[T any] struct {
	t T
	e runtime.SentinelEntry
}

// Spares holds the allocations of refused requests for the next requests
// of one middleware, in a few slots so that requests on different
// processors seldom contend for one. The zero Spares is empty and ready.
type Spares[T any] struct {
	slots [spareSlots]spareSlot[T]
}

const spareSlots = 8

type spareSlot[T any] struct {
	p atomic.Pointer[EntryAnd[T]]
	_ [56]byte // a cache line of its own
}

// slot picks a slot by the calling goroutine's stack: requests are served
// on goroutines of their own, whose stacks lie apart (2 KiB at the least),
// so concurrent requests mostly pick different slots, with no shared
// counter to pick by. A request puts back in the slot it took from.
func (s *Spares[T]) slot() *spareSlot[T] {
	var here byte
	p := uintptr(unsafe.Pointer(&here))
	return &s.slots[(p>>11^p>>14)%spareSlots]
}

// get returns a spare allocation, or a new one.
func (s *Spares[T]) get(slot *spareSlot[T]) *EntryAnd[T] {
	if p := slot.p.Load(); p != nil && slot.p.CompareAndSwap(p, nil) {
		return p
	}
	return new(EntryAnd[T])
}

// put keeps a in slot once its refused entry is zeroed again (a refusal
// never writes its T); a full slot keeps what it has.
func (s *Spares[T]) put(slot *spareSlot[T], a *EntryAnd[T]) {
	a.e = runtime.SentinelEntry{}
	slot.p.CompareAndSwap(nil, a)
}

// EnterSpared is EnterWith in memory that refused requests before it left
// in spares, when the request is entered in the shared web context (no
// origin, unified contexts, a declared resource): the most common request
// allocates once when admitted, and not at all when refused. Other
// requests are entered as EnterWith enters them.
//
// It is one function, not a dispatcher over helpers: every request of
// every adapter built on it passes here, and each call layer cost about
// 20 instructions of argument moves.
func EnterSpared[T, R any](g *Engine[R], spares *Spares[T], ctx context.Context, r R, res *runtime.Resource, name string) (*runtime.SentinelEntry, *T, *runtime.BlockError) {
	if res == nil {
		return EnterWith[T](g, ctx, r, res, name)
	}
	opts := g.opts[:2]
	var withArgs [3]runtime.EntryOption
	if g.Args != nil && res.NeedsArgs() {
		withArgs = g.withArgs(r)
		opts = withArgs[:]
	}
	if g.Origin != nil || g.SeparateContexts {
		origin := ""
		if g.Origin != nil {
			origin = g.Origin(r)
		}
		if origin != "" || g.SeparateContexts {
			ctxName := ContextName
			if g.SeparateContexts {
				ctxName = res.Name()
			}
			return runtime.EntryInContextWith[T](res, ctx, ctxName, origin, opts...)
		}
	}
	slot := spares.slot()
	a := spares.get(slot)
	e, b := res.EntryInSharedContextAt(&a.e, ctx, webContext(), opts...)
	if b != nil {
		// The entry was a.e, or one of the runtime's own when the
		// resource needs a larger one: either way a's memory is free.
		spares.put(slot, a)
		return nil, nil, b
	}
	return e, &a.t, nil
}
