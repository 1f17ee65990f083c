package runtime

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/sentinelgen/sentinelgen/internal/clock"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// Call is one call of a resource as the slots see it: who calls, with
// what, and what happened. A Call is valid from Check until the matching
// Exit; slots must not keep it.
//
// Call is laid out to keep the entry that holds it in a 128-byte size
// class: the entry is the one allocation of a call, and on these machines an
// allocation costs in proportion to its bytes.
type Call struct {
	res    *Resource
	ctx    context.Context  // the caller's
	sc     *sentinelContext // nil in the default context (see context)
	parent *SentinelEntry
	node   *DefaultNode
	chain  *boundChain
	args   *any // WithArgs' slice, as pointer and length (nargs)
	start  int64
	end    int64
	// err is the business error, or the *BlockError once blocked.
	err     error
	batch   int32
	nargs   uint16
	traffic TrafficType
	rtype   ResourceType
}

// Resource is the called resource.
func (c *Call) Resource() *Resource { return c.res }

// Name is the called resource's name.
func (c *Call) Name() string { return c.res.name }

// Context is the context.Context the call was entered with; a slot that
// waits (throttling) gives up when it is done.
func (c *Call) Context() context.Context { return c.ctx }

// ContextName is the name of the call's Sentinel context.
func (c *Call) ContextName() string { return c.context().name }

// context is the call's Sentinel context.
func (c *Call) context() *sentinelContext {
	if c.sc == nil {
		return defaultContext
	}
	return c.sc
}

// Origin is the caller's origin from EnterContext, "" when unknown.
func (c *Call) Origin() string { return c.context().origin }

// Node is the resource's node in the call's context (Java's DefaultNode).
func (c *Call) Node() *DefaultNode { return c.node }

// ClusterNode is the resource's node across contexts.
func (c *Call) ClusterNode() *ClusterNode { return c.res.cluster }

// OriginNode is the statistics of the call's origin on this resource, nil
// when the origin is unknown. Past the origin caps it is the node that
// counts every further origin together (see ClusterNode.OriginNode).
func (c *Call) OriginNode() *stat.Node {
	if c.sc == nil || c.sc.origin == "" {
		return nil
	}
	e := entryOf(c)
	if e.flags&originOverflow != 0 {
		return c.res.cluster.overflow.Load()
	}
	n := c.res.cluster.originNode(c.sc.origin, false)
	if c.res.cluster.IsOverflow(n) {
		e.flags |= originOverflow
	}
	return n
}

// Stripe is the stat stripe the call counts on (stat.Stripe when it was
// entered), for Checkers that stripe their counters by processor as
// package stat does: it spares them a processor lookup of their own.
func (c *Call) Stripe() int { return int(entryOf(c).stripe) }

// Args are the arguments passed with WithArgs.
func (c *Call) Args() []any {
	if c.args == nil {
		return nil
	}
	return unsafe.Slice(c.args, c.nargs)
}

// BatchCount is the number of tokens the call acquires (Java's count).
func (c *Call) BatchCount() int64 { return int64(c.batch) }

// StartMillis is when the call was entered, in Unix milliseconds of the
// runtime's clock (Java's createTimestamp): response times count from it.
func (c *Call) StartMillis() int64 { return c.start }

// NowMillis is the time the call's checks run at: StartMillis, or, once a
// check waited (Sleep), the time the wait ended. Its pass or block is
// counted at this time, after the checks, as Java's StatisticSlot counts it
// when the slots after it return; in Exit it is ExitMillis.
func (c *Call) NowMillis() int64 {
	if c.end == 0 {
		return c.start
	}
	return c.end
}

// Sleep is how a check waits (throttling, a prioritized call's borrowed
// window): it pauses for d through the runtime's clock, or until the call's
// context is done, and returns the context's error when the wait was
// abandoned. Later checks, and the count of the call's pass, see the time
// after the wait: at least NowMillis before it plus d, so that a cached
// millisecond clock a tick behind cannot count the pass in the window the
// call waited to leave.
func (c *Call) Sleep(d time.Duration) error {
	target := c.NowMillis() + d.Milliseconds()
	err := clock.SleepContext(c.ctx, d)
	now := clock.Millis()
	if err == nil {
		now = max(now, target)
	}
	c.end = max(now, c.start, 1)
	entryOf(c).flags |= waited
	return err
}

// Waited reports whether a check made the call wait (Sleep): its response
// time then holds the wait as well as the work. The adaptive limiter
// learns only from calls that did not wait.
func (c *Call) Waited() bool { return entryOf(c).flags&waited != 0 }

// ExitMillis is when the call exited, on the same clock reading the
// Statistic slot took its response time from (Java's completeTimestamp);
// in Exit of a call blocked by a later slot, it is the block's time.
func (c *Call) ExitMillis() int64 {
	if c.end == 0 {
		return c.start
	}
	return c.end
}

// Traffic is the call's traffic type.
func (c *Call) Traffic() TrafficType { return c.traffic }

// ResourceType is the call's resource type.
func (c *Call) ResourceType() ResourceType { return c.rtype }

// Err is the business error recorded on the call, if any.
func (c *Call) Err() error {
	if _, blocked := c.err.(*BlockError); blocked {
		return nil
	}
	return c.err
}

// BlockError is the error that blocked the call, nil while it is admitted.
func (c *Call) BlockError() *BlockError {
	b, _ := c.err.(*BlockError)
	return b
}

// Block returns a BlockError that refuses this call; a Checker returns it
// from Check.
func (c *Call) Block(t BlockType, rule Rule, triggered any) *BlockError {
	return &BlockError{blockType: t, resource: c.res.name, rule: rule, triggered: triggered}
}

// SentinelEntry is one admitted call of a resource (Java's Entry). It must
// be exited exactly once; Exit is idempotent, so a deferred Exit after an
// explicit one is harmless. Entries are never pooled: a stray Exit can only
// ever touch its own call.
type SentinelEntry struct {
	call   Call
	exited atomic.Bool
	// Open nested entries, for exiting a parent before its children (rare):
	// a singly linked list from the parent, guarded by nestLock(parent).
	linked bool
	// The call's flags live here, in what would be padding, to keep the
	// entry in its 128-byte size class; Call reaches them through entryOf.
	checked uint8 // after PassNow: how many checkers saw the call
	flags   entryFlags
	// stripe is the processor stripe the call counted its pass on; its
	// exit counts on it too, sparing a second processor lookup.
	stripe     uint8
	firstChild atomic.Pointer[SentinelEntry] // written under the lock, read without
	next       *SentinelEntry
}

// entryFlags are an entry's flags that only the call's own goroutine
// writes, so they share a byte.
type entryFlags uint8

const (
	prioritized entryFlags = 1 << iota // WithPrioritized
	// originOverflow: the call's origin was first counted on the overflow
	// node, so it stays there until the call exits even if a rule gives
	// the origin a node of its own meanwhile (counts must not move).
	originOverflow
	// timed: the entry is a timedEntry's, its resource keeps a
	// response-time histogram.
	timed
	waited // a check slept (Call.Sleep)
	// striped: the stripe was set from the processor that handed out the
	// entry (Enter), sparing enter a lookup.
	striped
)

// entryOf returns the entry that holds c: every Call is the first field of
// a SentinelEntry.
func entryOf(c *Call) *SentinelEntry { return (*SentinelEntry)(unsafe.Pointer(c)) }

// Prioritized reports whether the call was entered WithPrioritized (Java's
// SphU.entryWithPriority): a flow rule may let it borrow from a window to
// come and wait for it.
func (c *Call) Prioritized() bool { return entryOf(c).flags&prioritized != 0 }

// PassNow is what Check returns to admit the call without asking the
// slots after this one: Java's PriorityWaitException, which a prioritized
// call raises once it has waited for the window it borrowed from. The
// later slots neither check the call nor see its Exit. Past the 255th
// checker of a chain it admits the call like nil.
//
//	return c.PassNow()
func (c *Call) PassNow() *BlockError { return passNow }

// passNow is PassNow's signal: never a block, never seen by callers.
var passNow = &BlockError{}

// entryContext is the context.Context an entry hands to nested calls: the
// caller's ctx, plus the entry under ctxKey. It is the entry itself under
// another type, so Context allocates nothing and SentinelEntry's own method
// set stays clean.
type entryContext SentinelEntry

func (c *entryContext) Deadline() (time.Time, bool) { return c.call.ctx.Deadline() }
func (c *entryContext) Done() <-chan struct{}       { return c.call.ctx.Done() }
func (c *entryContext) Err() error                  { return c.call.ctx.Err() }

func (c *entryContext) Value(key any) any {
	if key == (ctxKey{}) {
		return (*SentinelEntry)(c)
	}
	return c.call.ctx.Value(key)
}

// Entry opens a call of the resource named resource (Java's SphU.entry),
// declaring the resource on first use. It returns the entry to exit when the
// call ends, or the BlockError that refused the call; a refused call is
// already exited and returns no entry.
//
// ctx supplies the Sentinel context (EnterContext), the parent entry of a
// nested call (SentinelEntry.Context), and the cancellation that abandons a
// throttling wait.
func Entry(ctx context.Context, resource string, opts ...EntryOption) (*SentinelEntry, *BlockError) {
	return lookupResource(resource).Entry(ctx, opts...)
}

// Entry opens a call of r; see the package-level Entry.
func (r *Resource) Entry(ctx context.Context, opts ...EntryOption) (*SentinelEntry, *BlockError) {
	if ctx == nil {
		ctx = context.Background()
	}
	if r.rtHist.Load() != nil {
		return r.enterTimed(&timedEntry{}, ctx, opts)
	}
	return r.enter(&SentinelEntry{}, ctx, opts)
}

// EntryInContext is EnterContext(ctx, contextName, origin) followed by
// Entry, with the Sentinel context and the entry in one allocation instead
// of two: what an adapter calls once per inbound request.
func (r *Resource) EntryInContext(ctx context.Context, contextName, origin string, opts ...EntryOption) (*SentinelEntry, *BlockError) {
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Value(ctxKey{}) != nil {
		return r.Entry(ctx, opts...) // the outermost context names the tree
	}
	if r.rtHist.Load() != nil {
		both := &struct {
			t  timedEntry
			sc sentinelContext
		}{}
		return r.enterTimed(&both.t, newContext(&both.sc, ctx, contextName, origin), opts)
	}
	both := &struct {
		e  SentinelEntry
		sc sentinelContext
	}{}
	return r.enter(&both.e, newContext(&both.sc, ctx, contextName, origin), opts)
}

// enter opens a call of r on the fresh entry e.
func (r *Resource) enter(e *SentinelEntry, ctx context.Context, opts []EntryOption) (*SentinelEntry, *BlockError) {
	c := &e.call
	c.ctx = ctx
	c.res = r
	c.batch = 1
	kinds := r.kinds.Load()
	c.traffic, c.rtype = TrafficType(kinds), ResourceType(kinds>>8)
	for i := range opts {
		switch o := &opts[i]; o.kind {
		case optArgs:
			if n := min(len(o.args), 1<<16-1); n > 0 {
				c.args, c.nargs = &o.args[0], uint16(n)
			}
		case optTraffic:
			c.traffic = TrafficType(o.n)
		case optResourceType:
			c.rtype = ResourceType(o.n)
		case optBatch:
			c.batch = int32(min(max(o.n, 1), 1<<30))
		case optPrioritized:
			e.flags |= prioritized
		}
	}
	// A fresh entry is zero: calls in the default context and outside any
	// parent store neither, sparing them the pointer writes (and, while
	// the GC marks, their write barriers). A shared context's is set
	// already, for a ctx without a Sentinel context (sharedcontext.go).
	sc, parent := c.sc, (*SentinelEntry)(nil)
	if sc == nil {
		if sc, parent = contextOf(ctx); sc != defaultContext {
			c.sc = sc
		}
		if parent != nil {
			c.parent = parent
		}
	}
	if disabled.Load() {
		return e, nil // switched off: unchecked and uncounted, as Java's entry without a chain
	}
	if e.flags&striped == 0 { // else Enter found it, taking the entry
		e.stripe, e.flags = uint8(stat.Stripe()), e.flags|striped
	}

	chain := r.bound.Load() // r.chain(), inlined
	if chain.gen != generation.Load() {
		chain = r.rebind()
	}
	c.chain = chain
	var node *DefaultNode
	if sc.entrance == defaultEntrance {
		node = r.defaultNode.Load() // r.node's common case, inlined
	}
	if node == nil {
		node = r.node(sc, parent, c)
	}
	c.node = node
	c.start = clock.Millis()
	if obs := observers.Load(); obs != nil {
		observeEnter(c, *obs)
	}

	checkers := chain.checkers()
	for i, ck := range checkers {
		if b := ck.Check(c); b != nil {
			if b == passNow {
				if i >= 255 {
					continue // too deep to remember: the later slots check it
				}
				e.checked = uint8(i + 1)
				break
			}
			c.err = b
			for _, prev := range checkers[:i] {
				prev.Exit(c)
			}
			now := c.NowMillis()
			recordBlock(c, now)
			logBlock(c, b, now)
			// The entry is not marked exited: nothing can reach it, since
			// a refused call returns none and no child linked to it.
			if obs := observers.Load(); obs != nil {
				observeBlock(c, b, *obs)
			}
			return nil, b
		}
	}
	// Counted when the checks return, after any wait (Java's StatisticSlot
	// counts after fireEntry): relate rules, system QPS and warm-up's
	// previous second then read the second the call passed in.
	recordPass(c, c.NowMillis())
	if c.parent != nil {
		c.parent.link(e)
	}
	return e, nil
}

// Exit ends the call: it counts the response time and the outcome, and lets
// the slots release what the call held. Only the first Exit counts. A nil
// entry is ignored, so `defer e.Exit()` is safe before checking the block.
//
// Exiting an entry whose nested entries are still open exits those first,
// innermost first, and logs a warning, as Java unwinds its entry stack.
func (e *SentinelEntry) Exit(opts ...ExitOption) {
	if e == nil {
		return
	}
	for i := range opts {
		if opts[i].err != nil {
			e.SetError(opts[i].err)
		}
	}
	if !e.exited.CompareAndSwap(false, true) {
		return
	}
	e.exit()
}

// exit counts the call's exit and releases it from its Checkers, once the
// caller has made sure it is the call's only exit.
func (e *SentinelEntry) exit() {
	c := &e.call
	if c.node == nil {
		return // never checked, so nothing to count
	}
	if c.parent != nil || e.firstChild.Load() != nil {
		e.exitNested()
	}
	if e.flags&timed != 0 {
		e.observeRT()
	}
	now := clock.Millis()
	if c.end > now {
		now = c.end // a wait ended later than the cached clock reads
	}
	c.end = now
	recordCompletion(c, now)
	if e.checked != 0 || c.chain.gen != generation.Load() {
		e.exitSlow()
	} else {
		for _, ck := range c.chain.exits() {
			ck.Exit(c)
		}
	}
	if obs := observers.Load(); obs != nil {
		observeExit(c, *obs)
	}
}

// exitSlow exits the Checkers of a call that passed early (PassNow: only
// those that saw it, as they were bound) or that straddled a rule change
// (exitAfterReload).
func (e *SentinelEntry) exitSlow() {
	c := &e.call
	if e.checked == 0 {
		exitAfterReload(c)
		return
	}
	for _, ck := range c.chain.checkers()[:e.checked] {
		ck.Exit(c)
	}
}

// SetError records err as the call's business error (Java's Tracer.trace):
// the call counts as an exception when it exits, which feeds error-ratio and
// error-count circuit breakers. Block errors are never recorded. Call it
// from the goroutine that exits the entry, before Exit.
func (e *SentinelEntry) SetError(err error) {
	if e == nil || err == nil || e.exited.Load() || isBlock(err) {
		return
	}
	e.call.err = err
}

// isBlock reports whether err is or wraps a *BlockError, as errors.As
// answers. An error that neither wraps nor has an As method is answered
// without errors.As, whose target would cost the call an allocation.
func isBlock(err error) bool {
	switch err := err.(type) {
	case *BlockError:
		return true
	case interface{ Unwrap() error }, interface{ Unwrap() []error }, interface{ As(any) bool }:
		var b *BlockError
		return errors.As(err, &b)
	}
	return false
}

// Context returns a context.Context that carries this entry: calls entered
// with it are this call's children in the invocation tree. It allocates
// nothing.
func (e *SentinelEntry) Context() context.Context {
	if e == nil {
		return context.Background()
	}
	return (*entryContext)(e)
}

// Resource is the entry's resource.
func (e *SentinelEntry) Resource() *Resource { return e.call.res }

// Err is the business error recorded on the entry.
func (e *SentinelEntry) Err() error { return e.call.Err() }
