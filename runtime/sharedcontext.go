package runtime

import "context"

// SharedContext is a Sentinel context, a name and an origin, resolved
// once for every call entered in it with EntryInSharedContext or
// EntryInSharedContextWith. An inbound adapter enters every request in
// one context with one origin (none) in the common case; EntryInContext
// would give each call a Sentinel context of its own, 56 bytes in the
// entry's allocation, and look its entrance up.
//
// A call entered in a SharedContext is one EntryInContext with the same
// name and origin makes, except that Call.Context is the ctx passed in
// rather than ctx wrapped with the Sentinel context.
type SharedContext struct {
	sc sentinelContext
}

// NewSharedContext returns the Sentinel context name whose calls come
// from origin, as EnterContext names it (an empty name, or the default
// context's, is the default context; past MaxContexts, the overflow).
func NewSharedContext(name, origin string) *SharedContext {
	s := &SharedContext{}
	newContext(&s.sc, nil, name, origin)
	return s
}

// EntryInSharedContext is r.EntryInContext in the shared context sc: the
// entry is the call's one allocation. As with EntryInContext, a ctx that
// carries a Sentinel context or an entry already keeps it.
func (r *Resource) EntryInSharedContext(ctx context.Context, sc *SharedContext, opts ...EntryOption) (*SentinelEntry, *BlockError) {
	if ctx == nil {
		ctx = context.Background()
	}
	if sc == nil || ctx.Value(ctxKey{}) != nil {
		return r.Entry(ctx, opts...) // the outermost context names the tree
	}
	if r.rtHist.Load() != nil {
		t := &timedEntry{}
		t.e.call.sc = &sc.sc
		return r.enterTimed(t, ctx, opts)
	}
	e := &SentinelEntry{}
	e.call.sc = &sc.sc
	return r.enter(e, ctx, opts)
}

// EntryInSharedContextWith is EntryInSharedContext that also allocates a
// zero T in the entry's allocation, as EntryWith does.
//
// A refused call returns the BlockError and neither an entry nor a T.
func EntryInSharedContextWith[T any](r *Resource, ctx context.Context, sc *SharedContext, opts ...EntryOption) (*SentinelEntry, *T, *BlockError) {
	if ctx == nil {
		ctx = context.Background()
	}
	if sc == nil || ctx.Value(ctxKey{}) != nil {
		return EntryWith[T](r, ctx, opts...) // the outermost context names the tree
	}
	return entryWith[T](r, ctx, &sc.sc, opts)
}
