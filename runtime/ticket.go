package runtime

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// Ticket is an admitted call opened with Enter: Entry without its one
// allocation. It is a value, not a pointer, because the entry behind it is
// reused once the call exits: the ticket carries the generation of the
// call it was issued for, and a ticket whose call has exited (a second
// Exit, an Exit of a copy kept after the first, an Exit from another
// goroutine that lost the race) finds the generation moved on and does
// nothing. A stale ticket can never exit, count on or read another call,
// even one that now uses the same memory. The one exception is a
// SetError that races the ticket's own Exit from another goroutine, which
// the package doc forbids: it may record its error on the next call.
//
// The zero Ticket is a refused call's: its Exit does nothing.
type Ticket struct {
	e *SentinelEntry
	// gen is the generation of the pooled entry this ticket was issued
	// for (a multiple of 4, never 0), or 0 when e was allocated for this
	// call alone (its resource keeps a response-time histogram, whose
	// entry is larger): then it is exited as a *SentinelEntry is.
	gen uint64
}

// pooledEntry is an entry that Enter reuses once its call has exited.
// Its state is one word, so that exiting, pinning and reusing it are each
// one compare-and-swap a stale ticket cannot slip between.
type pooledEntry struct {
	e SentinelEntry
	// state is the generation of the call the entry serves (a multiple
	// of 4), plus statePinned once the entry must never be reused (its
	// Context was handed out, or it was linked into a parent's list of
	// children, which hold *SentinelEntry), plus stateExited once a pinned
	// entry's call has exited. An unpinned entry's Exit moves it on to the
	// next generation instead.
	state atomic.Uint64
}

const (
	stateExited = 1
	statePinned = 2
	stateStep   = 4
)

// entries are the exited pooledEntries that the processors' own caches
// (entrycache.go) had no room for, ready for their next call. A new one
// starts at the first generation; a reused one is at the generation its
// last Exit moved it to.
var entries = sync.Pool{New: func() any {
	p := new(pooledEntry)
	p.state.Store(stateStep)
	return p
}}

// Enter opens a call of the resource named resource, as Entry does, and
// returns it as a Ticket: an admitted call that allocates nothing. A
// refused call returns the zero Ticket and the BlockError.
//
// The ticket must be exited once, with Ticket.Exit; exiting it again, or
// exiting a copy of it, does nothing.
func Enter(ctx context.Context, resource string, opts ...EntryOption) (Ticket, *BlockError) {
	return lookupResource(resource).Enter(ctx, opts...)
}

// Enter opens a call of r; see the package-level Enter.
func (r *Resource) Enter(ctx context.Context, opts ...EntryOption) (Ticket, *BlockError) {
	if ctx == nil {
		ctx = context.Background()
	}
	if r.rtHist.Load() != nil {
		e, b := r.enterTimed(&timedEntry{}, ctx, opts)
		return Ticket{e: e}, b
	}
	p, proc := getEntry()
	gen := p.state.Load() // no ticket holds it while it is in the pool
	if proc >= 0 {
		p.e.stripe, p.e.flags = uint8(proc&(stat.Stripes()-1)), striped
	}
	e, b := r.enter(&p.e, ctx, opts)
	if b != nil {
		p.recycle() // a refused call returns no ticket and is in no list
		return Ticket{}, b
	}
	if e.call.parent != nil {
		// Linked under its parent, which exits it through the pointer
		// should the parent exit first: it must never be reused.
		p.state.Store(gen | statePinned)
	}
	return Ticket{e: e, gen: gen}, nil
}

// Exit ends the ticket's call, as SentinelEntry.Exit does; only the first
// Exit of a call counts, and the Exit of a ticket whose call has exited
// does nothing, whatever has been done with the entry since.
func (t Ticket) Exit(opts ...ExitOption) {
	if t.e == nil {
		return
	}
	if t.gen == 0 {
		t.e.Exit(opts...)
		return
	}
	p := (*pooledEntry)(unsafe.Pointer(t.e))
	// The common case, the ticket's call unpinned and not yet exited, is
	// one compare-and-swap; the loop sorts out the others.
	for !p.state.CompareAndSwap(t.gen, t.gen+stateStep) {
		s := p.state.Load()
		if s&^statePinned != t.gen {
			return // exited, and perhaps reused since
		}
		if s&statePinned != 0 {
			// Reachable through a context or a parent's list, which
			// exit it as a *SentinelEntry: exit it so, and never reuse it.
			if p.state.CompareAndSwap(s, s|stateExited) {
				t.e.Exit(opts...)
				return
			}
		}
		// Else the state moved between the two reads: try again. Moving
		// on to the next generation is the exit: stale tickets, this one
		// included, no longer match, and no ticket holds the next one
		// until the entry leaves the pool again.
	}
	// This goroutine now owns the call's exit; nothing else can reach the
	// entry until recycle puts it back in the pool.
	e := t.e
	for i := range opts {
		if err := opts[i].err; err != nil && !isBlock(err) {
			e.call.err = err
		}
	}
	e.exit()
	p.recycle()
}

// SetError records err as the call's business error, as
// SentinelEntry.SetError does: call it from the goroutine that exits the
// ticket, before Exit (or pass WithError to Exit). After the call's Exit
// it does nothing.
func (t Ticket) SetError(err error) {
	if t.e == nil || err == nil {
		return
	}
	if t.gen == 0 {
		t.e.SetError(err)
		return
	}
	p := (*pooledEntry)(unsafe.Pointer(t.e))
	switch s := p.state.Load(); {
	case s&^statePinned != t.gen:
		return // exited: the entry may serve another call by now
	case s&statePinned != 0:
		t.e.SetError(err) // a parent may have exited it through the pointer
	case !isBlock(err):
		t.e.call.err = err
	}
}

// Context returns a context.Context that carries the ticket's call, as
// SentinelEntry.Context does: calls entered with it are this call's
// children. The entry is then never reused, since the context may outlive
// the call: the call costs the allocation Enter spared it. A ticket whose
// call has exited returns context.Background().
func (t Ticket) Context() context.Context {
	if t.e == nil {
		return context.Background()
	}
	if t.gen == 0 {
		return t.e.Context()
	}
	p := (*pooledEntry)(unsafe.Pointer(t.e))
	for {
		s := p.state.Load()
		if s&^statePinned != t.gen {
			return context.Background()
		}
		if s&statePinned != 0 || p.state.CompareAndSwap(s, s|statePinned) {
			return t.e.Context()
		}
	}
}

// Entered reports whether the ticket is an admitted call's (false for the
// zero Ticket of a refused call).
func (t Ticket) Entered() bool { return t.e != nil }

// recycle clears what the next call of the entry would not overwrite,
// and what the pool should not keep alive (the caller's context and
// error, a chain since replaced), and returns it to the pool. Its state keeps the generation, so
// that stale tickets still find it moved on. An entry in the pool was
// never linked to a parent nor a parent itself (those are pinned), and its
// exited flag was never set (its Exit went by the generation).
func (p *pooledEntry) recycle() {
	e := &p.e
	c := &e.call
	c.ctx, c.sc, c.parent, c.node, c.chain, c.args, c.err = nil, nil, nil, nil, nil, nil, nil
	c.end, c.nargs = 0, 0
	e.checked, e.flags, e.stripe = 0, 0, 0
	putEntry(p)
}
