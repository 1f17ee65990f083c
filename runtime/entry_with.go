package runtime

import "context"

// EntryWith is r.Entry that also allocates a zero T in the same allocation
// as the entry, for an adapter's per-call state (a response writer's
// wrapper, a stream's view of its context): one allocation per call
// instead of two. T adds its size to the entry's 128 bytes, rounded up to
// the next size class, so it should be small.
//
// The T belongs to this call alone: entries are never pooled, so the T is
// never reused for another call, and it stays valid for as long as it or
// the entry is referenced, after Exit too. State that must not outlive a
// call can therefore live in it safely, where a pooled object would let
// a stray reference reach another call.
//
// A refused call returns the BlockError and neither an entry nor a T.
func EntryWith[T any](r *Resource, ctx context.Context, opts ...EntryOption) (*SentinelEntry, *T, *BlockError) {
	if ctx == nil {
		ctx = context.Background()
	}
	return entryWith[T](r, ctx, nil, opts)
}

// entryWith is EntryWith in the Sentinel context sc, or in the one ctx
// names when sc is nil.
func entryWith[T any](r *Resource, ctx context.Context, sc *sentinelContext, opts []EntryOption) (*SentinelEntry, *T, *BlockError) {
	if r.rtHist.Load() != nil {
		both := &struct {
			e timedEntry
			t T
		}{}
		both.e.e.call.sc = sc
		e, b := r.enterTimed(&both.e, ctx, opts)
		if b != nil {
			return nil, nil, b
		}
		return e, &both.t, nil
	}
	both := &struct {
		e SentinelEntry
		t T
	}{}
	both.e.call.sc = sc
	e, b := r.enter(&both.e, ctx, opts)
	if b != nil {
		return nil, nil, b
	}
	return e, &both.t, nil
}

// EntryInContextWith is r.EntryInContext, the Sentinel context and the
// entry in one allocation, that also allocates a zero T in it, as
// EntryWith does: what an adapter calls once per inbound request when it
// keeps state per call. T adds its size to the entry's and the Sentinel
// context's 184 bytes, rounded up to the next size class.
//
// A refused call returns the BlockError and neither an entry nor a T.
func EntryInContextWith[T any](r *Resource, ctx context.Context, contextName, origin string, opts ...EntryOption) (*SentinelEntry, *T, *BlockError) {
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Value(ctxKey{}) != nil {
		return EntryWith[T](r, ctx, opts...) // the outermost context names the tree
	}
	if r.rtHist.Load() != nil {
		all := &struct {
			e  timedEntry
			sc sentinelContext
			t  T
		}{}
		e, b := r.enterTimed(&all.e, newContext(&all.sc, ctx, contextName, origin), opts)
		if b != nil {
			return nil, nil, b
		}
		return e, &all.t, nil
	}
	all := &struct {
		e  SentinelEntry
		sc sentinelContext
		t  T
	}{}
	e, b := r.enter(&all.e, newContext(&all.sc, ctx, contextName, origin), opts)
	if b != nil {
		return nil, nil, b
	}
	return e, &all.t, nil
}
