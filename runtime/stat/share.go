package stat

// A sharing node counts its calls on another node, its base, for as long
// as both would count the same calls: a resource's node in its only
// context and the resource's node across contexts. A call then writes one
// window and one thread count where it would write two of each.
//
// Calls count on a sharing node and its base together, with the Tick's
// Pair methods. When another node starts counting calls of the base that
// are not the sharing node's (a second context), the runtime tells the
// sharing node so with CountApart:
//
//   - the first time, the sharing node's window splits from its base's:
//     it gets a window of its own, seeded with what the shared one holds,
//     and from then on the Pair methods count in both windows;
//   - threads are counted once, always, on the node the call is in: the
//     base's calls in flight are the sum of its parts' (the sharing node
//     and the nodes counting apart). Every counter only holds calls that
//     are in flight, so no read is ever negative or counts another
//     context's call, and no call in flight across a split is lost or
//     counted twice.
//
// A split races the calls counting meanwhile. Each Pair method counts on
// the base first, then reads which window the node has: a count the seed
// may have missed (made on the base after the seed read it) is made when
// the node already has its own window, so it is counted there too. None
// is lost; a call counted within the few microseconds of a split may be
// counted twice in the node's window, never in its base's.
//
// Reading the base's threads sums its parts, so it costs in proportion to
// the contexts that call the resource; the counts calls write stay one
// per node.

// NewSharingNode returns a node without history that counts on base until
// CountApart. Calls count on it with the Pair methods only.
func NewSharingNode(base *Node) *Node {
	n := &Node{}
	n.ShareWith(base)
	return n
}

// ShareWith makes the zero node n a sharing node of base, as
// NewSharingNode does, for a caller that allocates n within its own
// struct: calls then read both from one place.
func (n *Node) ShareWith(base *Node) {
	n.base = base
	n.threads = newThreads()
	n.second.Store(base.second.Load())
	base.addPart(n)
}

// addPart makes the calls in flight of p, which counts with the Pair
// methods on n, part of n's.
func (n *Node) addPart(p *Node) {
	p.inBase = true
	for {
		old := n.parts.Load()
		var list []*Node
		if old != nil {
			list = *old
		}
		list = append(list[:len(list):len(list)], p)
		if n.parts.CompareAndSwap(old, &list) {
			return
		}
	}
}

// Shares reports whether n still counts in its base's window.
func (n *Node) Shares() bool {
	return n.base != nil && n.second.Load() == n.base.second.Load()
}

// CountApart tells a sharing node n that other, a node counted with
// Pass, Block and Complete alongside n's base, counts calls of the base
// that are not n's. The first CountApart splits n's window from its
// base's. Callers serialise CountApart calls on one node, and make them
// before other counts its first call; from then on other's calls in
// flight count on other alone, and base sums them.
func (n *Node) CountApart(other *Node) {
	if n.base == nil {
		return
	}
	n.base.addPart(other)
	if !n.Shares() {
		return
	}
	shared := n.second.Load()
	own := newSecondWindow()
	// Publish first, then seed: a count on the base after this Store is
	// also made on own by the Pair methods, and one before it is in the
	// shared window when the seed reads it.
	n.second.Store(own)
	own.seed(shared)
}

// PassPair counts count admitted calls on n and on its base, once where
// they share. n may also be a node that does not share (NewNode): then it
// counts on each, its calls in flight on n alone once CountApart made n
// part of base.
func (t *Tick) PassPair(n, base *Node, count int64) {
	bw := base.second.Load()
	n.thread(t.stripe).Add(1)
	if !n.inBase {
		base.thread(t.stripe).Add(1)
	}
	t.add(bw, Pass, count)
	if w := n.second.Load(); w != bw {
		t.add(w, Pass, count)
	}
}

// BlockPair counts count blocked calls on n and on its base, once where
// they share.
func (t *Tick) BlockPair(n, base *Node, count int64) {
	t.Block(base, count)
	if w := n.second.Load(); w != base.second.Load() {
		t.add(w, Block, count)
	}
}

// CompletePair counts count completed calls on n and on its base, once
// where they share (see Complete).
func (t *Tick) CompletePair(n, base *Node, rt, count int64, failed bool) {
	bw := base.second.Load()
	t.complete(bw, rt, count, failed)
	if w := n.second.Load(); w != bw {
		t.complete(w, rt, count, failed)
	}
	if !n.inBase {
		base.thread(t.stripe).Add(-1)
	}
	n.thread(t.stripe).Add(-1)
}
