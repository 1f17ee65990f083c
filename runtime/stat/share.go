package stat

// A sharing node counts its calls in another node's window, its base's,
// for as long as both would count the same calls: a resource's node in
// its only context and the resource's node across contexts. A call then
// writes one window where it would write two. Threads are always the
// node's own, so they stay exact across a Split.
//
// Calls count on a sharing node and its base together, with the Tick's
// Pair methods, which count the window once while it is shared. Split
// gives the node a window of its own, seeded with what the shared one
// holds; from then on the Pair methods count on both windows.
//
// A Split races the calls counting meanwhile. Each Pair method counts on
// the base first, then reads which window the node has: a count the seed
// may have missed (made on the base after the seed read it) is made when
// the node already has its own window, so it is counted there too. None
// is lost; a call counted within the few microseconds of a Split may be
// counted twice in the node's window, never in its base's.

// NewSharingNode returns a node without history that counts in base's
// second window until Split.
func NewSharingNode(base *Node) *Node {
	n := &Node{threads: make([]paddedInt, stripeCount), base: base}
	n.second.Store(base.second.Load())
	return n
}

// Shares reports whether n still counts in its base's window.
func (n *Node) Shares() bool {
	return n.base != nil && n.second.Load() == n.base.second.Load()
}

// Split gives n a window of its own, holding what the shared window holds
// at now. Callers serialise Splits of one node; Split of a node that does
// not share does nothing.
func (n *Node) Split() {
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

// PassPair counts count admitted calls on n and on its base, once in the
// window they share.
func (t *Tick) PassPair(n, base *Node, count int64) {
	t.Pass(base, count)
	n.threads[t.stripe].v.Add(1)
	if w := n.second.Load(); w != base.second.Load() {
		t.add(w, Pass, count)
	}
}

// BlockPair counts count blocked calls on n and on its base, once in the
// window they share.
func (t *Tick) BlockPair(n, base *Node, count int64) {
	t.Block(base, count)
	if w := n.second.Load(); w != base.second.Load() {
		t.add(w, Block, count)
	}
}

// CompletePair counts count completed calls on n and on its base, once in
// the window they share (see Complete).
func (t *Tick) CompletePair(n, base *Node, rt, count int64, failed bool) {
	t.Complete(base, rt, count, failed)
	if w := n.second.Load(); w != base.second.Load() {
		t.complete(w, rt, count, failed)
	}
	n.threads[t.stripe].v.Add(-1)
}
