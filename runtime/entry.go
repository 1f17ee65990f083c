package runtime

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/clock"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// Call is one call of a resource as the slots see it: who calls, with
// what, and what happened. A Call is valid from Check until the matching
// Exit; slots must not keep it.
type Call struct {
	res        *Resource
	ectx       entryContext // the caller's ctx, plus this entry for nested calls
	sc         *sentinelContext
	parent     *SentinelEntry
	node       *DefaultNode
	originNode *stat.Node
	chain      *boundChain
	args       []any
	start      int64
	err        error
	blockErr   *BlockError
	batch      int32
	traffic    TrafficType
	rtype      ResourceType
}

// Resource is the called resource.
func (c *Call) Resource() *Resource { return c.res }

// Name is the called resource's name.
func (c *Call) Name() string { return c.res.name }

// Context is the context.Context the call was entered with; a slot that
// waits (throttling) gives up when it is done.
func (c *Call) Context() context.Context { return c.ectx.Context }

// ContextName is the name of the call's Sentinel context.
func (c *Call) ContextName() string { return c.sc.name }

// Origin is the caller's origin from EnterContext, "" when unknown.
func (c *Call) Origin() string { return c.sc.origin }

// Node is the resource's node in the call's context (Java's DefaultNode).
func (c *Call) Node() *DefaultNode { return c.node }

// ClusterNode is the resource's node across contexts.
func (c *Call) ClusterNode() *ClusterNode { return c.res.cluster }

// OriginNode is the statistics of the call's origin on this resource, nil
// when the origin is unknown.
func (c *Call) OriginNode() *stat.Node { return c.originNode }

// Args are the arguments passed with WithArgs.
func (c *Call) Args() []any { return c.args }

// BatchCount is the number of tokens the call acquires (Java's count).
func (c *Call) BatchCount() int64 { return int64(c.batch) }

// StartMillis is when the call was entered, in Unix milliseconds of the
// runtime's clock.
func (c *Call) StartMillis() int64 { return c.start }

// Traffic is the call's traffic type.
func (c *Call) Traffic() TrafficType { return c.traffic }

// ResourceType is the call's resource type.
func (c *Call) ResourceType() ResourceType { return c.rtype }

// Err is the business error recorded on the call, if any.
func (c *Call) Err() error { return c.err }

// BlockError is the error that blocked the call, nil while it is admitted.
func (c *Call) BlockError() *BlockError { return c.blockErr }

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
	linked bool // in the parent's list of open children

	// Open child entries, for exiting a parent before its children (rare):
	// an intrusive list guarded by the parent's mu.
	mu         sync.Mutex
	firstChild *SentinelEntry
	prev, next *SentinelEntry
}

// entryContext is the context.Context an entry hands to nested calls: the
// caller's ctx, plus the entry under ctxKey. It lives inside the entry, so
// Context allocates nothing.
type entryContext struct {
	context.Context
	e *SentinelEntry
}

func (c *entryContext) Value(key any) any {
	if key == (ctxKey{}) {
		return c.e
	}
	return c.Context.Value(key)
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
	e := &SentinelEntry{}
	c := &e.call
	c.ectx = entryContext{Context: ctx, e: e}
	c.res = r
	c.batch = 1
	spec := r.spec.Load()
	c.traffic, c.rtype = spec.Traffic, spec.Type
	for i := range opts {
		switch o := &opts[i]; o.kind {
		case optArgs:
			c.args = o.args
		case optTraffic:
			c.traffic = TrafficType(o.n)
		case optResourceType:
			c.rtype = ResourceType(o.n)
		case optBatch:
			c.batch = int32(min(max(o.n, 1), 1<<30))
		}
	}
	c.sc, c.parent = contextOf(ctx)
	if r.unchecked || c.sc.entrance == nil {
		return e, nil // past a cap: pass unchecked, as Java's null chain
	}

	chain := r.chain()
	c.chain = chain
	c.node = r.node(c.sc, c.parent)
	if c.sc.origin != "" {
		c.originNode = r.cluster.originNode(c.sc.origin)
	}
	now := clock.Millis()
	c.start = now

	for i, ck := range chain.checkers {
		if b := ck.Check(c); b != nil {
			c.blockErr = b
			for _, prev := range chain.checkers[:i] {
				prev.Exit(c)
			}
			recordBlock(c, now)
			logBlock(r, b, now)
			e.exited.Store(true)
			return nil, b
		}
	}
	recordPass(c, now)
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
	c := &e.call
	if c.node == nil {
		return // unchecked
	}
	e.exitChildren()
	now := clock.Millis()
	recordCompletion(c, now)
	for _, ck := range c.chain.checkers {
		ck.Exit(c)
	}
	if c.parent != nil {
		c.parent.unlink(e)
	}
}

// SetError records err as the call's business error (Java's Tracer.trace):
// the call counts as an exception when it exits, which feeds error-ratio and
// error-count circuit breakers. Block errors are never recorded. Call it
// from the goroutine that exits the entry, before Exit.
func (e *SentinelEntry) SetError(err error) {
	if e == nil || err == nil || e.exited.Load() {
		return
	}
	var b *BlockError
	if errors.As(err, &b) {
		return
	}
	e.call.err = err
}

// Context returns a context.Context that carries this entry: calls entered
// with it are this call's children in the invocation tree. It allocates
// nothing.
func (e *SentinelEntry) Context() context.Context {
	if e == nil {
		return context.Background()
	}
	return &e.call.ectx
}

// Resource is the entry's resource.
func (e *SentinelEntry) Resource() *Resource { return e.call.res }

// Err is the business error recorded on the entry.
func (e *SentinelEntry) Err() error { return e.call.err }
