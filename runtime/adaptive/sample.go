package adaptive

import (
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// maxSampleMs caps one call's response time in the sums: a call stuck for
// hours counts as a minute, so that the squares cannot overflow.
const maxSampleMs = 60000

// window collects the response times of the calls that exit in one sample
// interval: their count, sum and sum of squares. Calls add to their
// processor's stripe (each on its own cache line) with atomics; the
// limiter reads and resets every stripe at the interval's end.
type window struct {
	stripes []windowStripe
}

type windowStripe struct {
	n, sum, sumSq atomic.Int64
	_             [64 - 24]byte // a cache line each: parallel exits share none
}

func newWindow() window { return window{stripes: make([]windowStripe, stat.Stripes())} }

// add counts a response time of rt ms on stripe i (runtime.Call.Stripe).
func (w *window) add(i int, rt int64) {
	rt = min(max(rt, 0), maxSampleMs)
	s := &w.stripes[i&(len(w.stripes)-1)]
	s.n.Add(1)
	if rt > 0 { // a call that took no time weighs nothing: spare two adds
		s.sum.Add(rt)
		s.sumSq.Add(rt * rt)
	}
}

// take returns what w holds and empties it.
func (w *window) take() sums {
	var out sums
	for i := range w.stripes {
		s := &w.stripes[i]
		out.add(sums{n: s.n.Swap(0), sum: s.sum.Swap(0), sumSq: s.sumSq.Swap(0)})
	}
	return out
}

// sums are response times collected over one or more intervals.
//
// Each call's response time is weighted by itself: mean is Σrt²/Σrt, the
// mean response time of the calls a random instant finds in flight. That is
// the response time an in-flight limit governs (by Little's law, the calls
// in flight are the throughput times this mean), and a call that takes no
// time weighs nothing: a flood of cheap requests can neither drag the
// estimate down nor make up the samples an estimate needs, because
// effective counts them by the time they hold a slot.
type sums struct {
	n, sum, sumSq int64
}

func (s *sums) add(o sums) {
	s.n += o.n
	s.sum += o.sum
	s.sumSq += o.sumSq
}

// estimator is how the limiter reads sums: the time-weighted one in
// production; the simulator swaps in a per-call one to show what a flood
// of cheap requests does to it.
var estimator = struct {
	mean, effective func(sums) float64
}{sums.mean, sums.effective}

// mean is the time-weighted mean response time in ms, 0 without samples.
func (s sums) mean() float64 {
	if s.sum == 0 {
		return 0
	}
	return float64(s.sumSq) / float64(s.sum)
}

// effective is Kish's effective sample size for these weights,
// (Σrt)²/Σrt²: the number of calls when they all took the same time, and
// about the number of slow ones when a flood of fast ones comes with them.
func (s sums) effective() float64 {
	if s.sumSq == 0 {
		return 0
	}
	return float64(s.sum) * float64(s.sum) / float64(s.sumSq)
}
