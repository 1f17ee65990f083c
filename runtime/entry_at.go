package runtime

import "context"

// EntryInSharedContextAt is r.EntryInSharedContext entered in e, memory
// the caller provides, instead of an allocation of its own: e is a zero
// SentinelEntry, usually beside the caller's per-call state in one
// allocation of the caller's. It returns e, or an entry of its own when
// the resource needs a larger one (it keeps a response-time histogram);
// the caller's memory is then unused.
//
// A refused call leaves e in no list, and nothing in the runtime keeps a
// reference to it, as with the entries Enter reuses: the caller may zero
// it and enter another call in it, so that refusals, most calls under
// overload, allocate nothing. An admitted call's entry is that call's for
// good, as Entry's is: it may be reachable through its context long after
// Exit, and must never be reused.
func (r *Resource) EntryInSharedContextAt(e *SentinelEntry, ctx context.Context, sc *SharedContext, opts ...EntryOption) (*SentinelEntry, *BlockError) {
	if ctx == nil {
		ctx = context.Background()
	}
	if r.rtHist.Load() != nil {
		return r.EntryInSharedContext(ctx, sc, opts...)
	}
	if sc != nil && ctx.Value(ctxKey{}) == nil {
		e.call.sc = &sc.sc
	}
	// A nested call (ctx carries a Sentinel context) keeps the outermost
	// context, as EntryInSharedContext does.
	return r.enter(e, ctx, opts)
}
