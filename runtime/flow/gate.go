package flow

import (
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// A gate is the admission accounting of one Reject rule on one node: the
// tokens it admitted in the current window (QPS), or the calls it holds in
// flight (thread grade). Java checks the node's figures and the
// Statistic slot counts the pass afterwards, so concurrent callers that
// all read count-1 all pass; a gate checks and counts in one atomic step,
// so a Direct Reject rule never admits more than count, whatever the
// concurrency. The arithmetic stays Java's: a call passes while
// used + acquire <= count.
type gate struct {
	passes  *stat.Window // QPS grade: Java's second window, 2 x 500 ms
	threads atomic.Int64 // thread grade: calls, not tokens
}

// newGate returns a gate of grade for a rule whose admission limit is
// limit. A QPS gate lives in a gateBlock, its window's line first.
func newGate(grade Grade, seed *stat.Node, now, limit int64) *gate {
	if grade != GradeQPS {
		return &gate{}
	}
	gb := new(gateBlock)
	g := &gb.gate
	// Occupiable: prioritized calls may reserve passes in the windows to
	// come (occupy.go).
	g.passes = gb.mem.Init(limit)
	// A new gate starts from what the node already admitted in the
	// window, so loading or changing a rule mid-window does not grant a
	// fresh count on top of the passes just made.
	if seed != nil {
		for _, b := range seed.SecondWindow().Buckets(now) {
			if b.Pass > 0 {
				g.passes.Add(b.Start, stat.Pass, b.Pass)
			}
		}
	}
	return g
}

// tryPass admits acquire tokens at now if the window stays within limit.
func (g *gate) tryPass(now, acquire, limit int64) bool {
	return g.passes.TryAdd(now, stat.Pass, acquire, limit)
}

// undoPass gives back the tokens a call admitted at time at took, when a
// later check refused the call.
func (g *gate) undoPass(at, acquire int64) {
	g.passes.AddAt(at, stat.Pass, -acquire)
}

// tryThreads takes one thread token if the calls in flight plus acquire
// stay within limit: Java's curThreadNum + acquireCount > count refuses,
// and curThreadNum counts one per call whatever its batch count. inFlight
// is the node's own count (Java's curThreadNum), which also holds calls
// admitted before the gate existed: the larger of the two is what is in
// use.
func (g *gate) tryThreads(inFlight, acquire, limit int64) bool {
	for {
		cur := g.threads.Load()
		if max(cur, inFlight)+acquire > limit {
			return false
		}
		if g.threads.CompareAndSwap(cur, cur+1) {
			return true
		}
	}
}

// releaseThreads gives back the thread token tryThreads took.
func (g *gate) releaseThreads() { g.threads.Add(-1) }

// gates are the gates of one rule on one resource: one for "default" (the
// ClusterNode) or a specific origin (that origin's node), one per origin
// node for "other", which limits each unnamed origin on its own node. The
// runtime bounds origin nodes, and origins past its bounds share one
// overflow node, so they share one gate too: limited together, never
// waved through.
type gates struct {
	grade    Grade
	single   *gate
	byOrigin sync.Map // *stat.Node -> *gate
}

// forOrigin returns the gate of an origin's node, creating it, seeded from
// the node, on the origin's first call.
func (gs *gates) forOrigin(node *stat.Node, now, limit int64) *gate {
	if g, ok := gs.byOrigin.Load(node); ok {
		return g.(*gate)
	}
	g, _ := gs.byOrigin.LoadOrStore(node, newGate(gs.grade, node, now, limit))
	return g.(*gate)
}

// lookup returns the gate of an origin's node, nil if it has none.
func (gs *gates) lookup(node *stat.Node) *gate {
	if g, ok := gs.byOrigin.Load(node); ok {
		return g.(*gate)
	}
	return nil
}
