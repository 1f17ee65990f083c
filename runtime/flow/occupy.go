package flow

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// Prioritized calls (runtime.WithPrioritized, Java's
// SphU.entryWithPriority). A prioritized call that a QPS Reject rule
// refuses may borrow from a window to come: Java's DefaultController asks
// StatisticNode.tryOccupyNext how long until a window has room for it,
// and when that is shorter than the occupy timeout, counts the call there
// (addWaitingRequest), sleeps until then and passes (PriorityWaitException).

// DefaultOccupyTimeout is Java's OccupyTimeoutProperty default.
const DefaultOccupyTimeout = 500 * time.Millisecond

// maxOccupyTimeout is Java's bound on it: the statistic interval, 1 s.
const maxOccupyTimeout = stat.SecondIntervalMs * time.Millisecond

var occupyTimeoutMs atomic.Int64

func init() { occupyTimeoutMs.Store(DefaultOccupyTimeout.Milliseconds()) }

// OccupyTimeout is the longest a prioritized call waits for a borrowed
// window.
func OccupyTimeout() time.Duration { return time.Duration(occupyTimeoutMs.Load()) * time.Millisecond }

// SetOccupyTimeout sets the longest a prioritized call waits for a borrowed
// window (Java's OccupyTimeoutProperty.updateTimeout), 500 ms by default.
// A call may borrow only from a window it can reach in less than d. Values
// below 0 or above 1 s are refused and the setting stays, as Java ignores
// them; milliseconds are what counts.
func SetOccupyTimeout(d time.Duration) error {
	if d < 0 || d > maxOccupyTimeout {
		return fmt.Errorf("flow: occupy timeout %v must be between 0 and %v", d, maxOccupyTimeout)
	}
	occupyTimeoutMs.Store(d.Milliseconds())
	return nil
}

// occupyView is what tryOccupyNext reads of the statistics the rule
// checks: its passes in the window at now, those borrowed from windows to
// come, and the passes of one bucket.
type occupyView interface {
	Sum(now int64, ev stat.Event) int64
	Waiting(now int64, ev stat.Event) int64
	BucketSum(at int64, ev stat.Event) int64
}

// tryOccupyNext is Java's StatisticNode.tryOccupyNext: the wait, in ms,
// until a window holds acquire more passes within threshold, or timeout
// when none within reach does. The window in waitMs drops the buckets
// before it; what was borrowed already counts, wherever it lies.
func tryOccupyNext(v occupyView, pass, borrowed, now, acquire int64, threshold float64, timeout int64) int64 {
	const (
		interval  = stat.SecondIntervalMs
		bucketLen = stat.SecondIntervalMs / stat.SecondSampleCount
	)
	maxCount := threshold * interval / 1000
	if float64(borrowed) >= maxCount {
		return timeout
	}
	earliest := now - now%bucketLen + bucketLen - interval
	for idx := int64(0); earliest < now; idx++ {
		wait := idx*bucketLen + bucketLen - now%bucketLen
		if wait >= timeout {
			break
		}
		windowPass := v.BucketSum(earliest, stat.Pass)
		if float64(pass+borrowed+acquire-windowPass) <= maxCount {
			return wait
		}
		earliest += bucketLen
		pass -= windowPass
	}
	return timeout
}

// occupyGate borrows for a Direct rule: the passes it reads and the one it
// reserves are the gate's, so no window of the gate ever exceeds the
// rule's limit, reserved passes included. It returns the wait, or false.
func (br *boundRule) occupyGate(g *gate, now, acquire int64) (int64, bool) {
	w := g.passes
	timeout := occupyTimeoutMs.Load()
	wait := tryOccupyNext(w, w.Sum(now, stat.Pass), w.Waiting(now, stat.Pass), now, acquire, br.count, timeout)
	if wait >= timeout {
		return 0, false
	}
	at := now + wait
	w.Reserve(at, stat.Pass, acquire)
	// A concurrent call may have taken the room meanwhile: check the
	// windows the reservation falls in, with it in place.
	if !w.Fits(at, stat.Pass, br.limit) {
		w.AddAt(at, stat.Pass, -acquire)
		return 0, false
	}
	return wait, true
}

// occupyNode borrows for a Relate or Chain rule, on the node the rule
// reads and the rule's own record of what was borrowed from that node.
// As Java's node checks, it reads and then counts: concurrent calls may
// overshoot, as they may with those rules' ordinary checks.
func (br *boundRule) occupyNode(node *stat.Node, now, acquire int64) (int64, bool) {
	w := node.SecondWindow()
	borrow := br.state.borrowed()
	timeout := occupyTimeoutMs.Load()
	wait := tryOccupyNext(w, w.Sum(now, stat.Pass), borrow.Waiting(now, stat.Pass), now, acquire, br.count, timeout)
	if wait >= timeout {
		return 0, false
	}
	borrow.Reserve(now+wait, stat.Pass, acquire)
	return wait, true
}

// borrowed returns the rule's record of passes borrowed from its node.
func (s *resState) borrowed() *stat.Window {
	if w := s.borrow.Load(); w != nil {
		return w
	}
	w := stat.NewOccupiableWindow(stat.SecondSampleCount, stat.SecondIntervalMs)
	if s.borrow.CompareAndSwap(nil, w) {
		return w
	}
	return s.borrow.Load()
}

// borrowing is a call's pass borrowed by one rule during one Check.
type borrowing struct {
	rule int          // index of the rule that borrowed
	w    *stat.Window // where the pass was reserved; nil: none
	at   int64        // the time borrowed from
}

func (bw *borrowing) active() bool { return bw.w != nil }

func (bw *borrowing) undo(acquire int64) {
	if bw.w != nil {
		bw.w.AddAt(bw.at, stat.Pass, -acquire)
	}
}

// borrow is DefaultController.canPass's prioritized branch for a QPS
// Reject rule that refused the call: it reserves the call's pass in the
// window to come that has room, if one is within the occupy timeout.
// A cluster rule checked locally (no ClusterChecker set) borrows as a local
// one; with a ClusterChecker it does not, even when it falls back to its
// local check (Java's token server may answer SHOULD_WAIT; the
// ClusterChecker has no such answer).
func (br *boundRule) borrow(c *runtime.Call, acquire int64, bw *borrowing) bool {
	if br.grade != GradeQPS || br.cluster != nil || !br.applies(c) {
		return false
	}
	switch br.kind {
	case kindGate:
		now := c.StartMillis()
		g := br.gate(c, now)
		wait, ok := br.occupyGate(g, now, acquire)
		if !ok {
			return false
		}
		bw.w, bw.at = g.passes, now+wait
		return true
	case kindNode:
		node := br.selectNode(c)
		if node == nil {
			return false
		}
		now := c.NowMillis()
		wait, ok := br.occupyNode(node, now, acquire)
		if !ok {
			return false
		}
		bw.w, bw.at = br.state.borrowed(), now+wait
		return true
	}
	return false
}
