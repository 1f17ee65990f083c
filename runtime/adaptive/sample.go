package adaptive

import (
	"math/bits"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// maxSampleMs caps one call's response time: a call stuck for hours counts
// as a minute, the histogram's last bucket.
const maxSampleMs = 60000

// The histogram's buckets: a response time under exactBuckets ms has a
// bucket of its own; above, each power of two is cut into 2^subBits
// buckets, so that a bucket is at most 1/16 of the times it holds wide
// (the median is read to within 3%). 208 buckets reach 65,535 ms, past
// maxSampleMs.
const (
	subBits      = 4
	exactBuckets = 2 << subBits
	numBuckets   = exactBuckets + (16-subBits-1)<<subBits
)

// bucketOf returns the bucket of a response time of rt ms, 0 <= rt <=
// maxSampleMs: a shift and a few adds.
func bucketOf(rt int64) int {
	if rt < exactBuckets {
		return int(rt)
	}
	p := bits.Len64(uint64(rt)) - 1 // rt's top bit, subBits+1 or more
	sub := int(rt>>(p-subBits)) & (1<<subBits - 1)
	return exactBuckets + (p-subBits-1)<<subBits + sub
}

// bucketBounds returns the response times bucket b holds: lo to hi ms,
// hi excluded.
func bucketBounds(b int) (lo, hi int64) {
	if b < exactBuckets {
		return int64(b), int64(b) + 1
	}
	p := (b-exactBuckets)>>subBits + subBits + 1
	sub := int64(b-exactBuckets) & (1<<subBits - 1)
	lo = (1<<subBits + sub) << (p - subBits)
	return lo, lo + 1<<(p-subBits)
}

// window collects the response times of the calls that exit in one sample
// interval, as a histogram: one atomic add a call. Calls add to their
// processor's stripe with atomics; the limiter reads and resets every
// stripe at the interval's end.
type window struct {
	stripes []windowStripe
}

// windowStripe is 208 four-byte counts, thirteen cache lines: stripes
// share none. A stripe counts at most one interval's calls (at most a minute of
// them) before it is read and reset, far below 2^32.
type windowStripe struct {
	counts [numBuckets]atomic.Uint32
}

func newWindow() window { return window{stripes: make([]windowStripe, stat.Stripes())} }

// add counts a response time of rt ms on stripe i (runtime.Call.Stripe).
func (w *window) add(i int, rt int64) {
	rt = min(max(rt, 0), maxSampleMs)
	w.stripes[i&(len(w.stripes)-1)].counts[bucketOf(rt)].Add(1)
}

// take adds what w holds to h and empties w. Most buckets are empty: a
// load spares them the locked swap (a call that counts in one meanwhile
// is taken with the next interval's).
func (w *window) take(h *histogram) {
	for i := range w.stripes {
		counts := &w.stripes[i].counts
		for b := range counts {
			if counts[b].Load() != 0 {
				h[b] += int64(counts[b].Swap(0))
			}
		}
	}
}

// histogram is the calls per bucket of response time, over one or more
// intervals.
type histogram [numBuckets]int64

func (h *histogram) calls() int64 {
	var n int64
	for _, c := range h {
		n += c
	}
	return n
}

// summary is the response time the limiter reads from a histogram, and
// how many samples it stands on.
type summary struct {
	rtt       float64 // ms; 0 if nothing measurable
	effective float64
}

// estimator is how the limiter reads a histogram: the bounded time-weighted
// median in production; the simulator swaps in others to show what an
// attack does to them.
var estimator = (*histogram).weightedMedian

// weightMultiple bounds a call's weight: at most this many times the
// unloaded response time.
const weightMultiple = 4

// weightedMedian is the median of the response times, each call weighted
// by its own time but by no more than weightMultiple × minRTT (by its time
// alone while minRTT is unknown, 0), with Kish's effective sample size for
// these weights, (Σw)²/Σw².
//
// Weighted by time, the distribution is that of the calls a random instant
// finds in flight, the ones an in-flight limit governs, and a call that
// takes no time weighs nothing: a flood of cheap calls can neither drag
// the median down nor make up the samples a decision needs. Bounded, a
// call that holds its slot for a second weighs as much as one that took
// weightMultiple × minRTT, and the median moves only once the slow calls
// weigh more than the others: about one slow call for every
// weightMultiple calls of minRTT, where a mean weighted by time is moved
// by one in five hundred (a hostile caller's trickled bodies).
func (h *histogram) weightedMedian(minRTT float64) summary {
	limit := minRTT * weightMultiple
	if limit <= 0 {
		limit = maxSampleMs
	}
	return h.median(func(b int) float64 { return min(bucketMiddle(b), limit) })
}

// bucketMiddle is the middle of the response times bucket b holds, in ms.
func bucketMiddle(b int) float64 {
	lo, hi := bucketBounds(b)
	return float64(lo+hi-1) / 2
}

// median is the median of the response times with each call in bucket b
// weighted by weight(b), and the effective sample size for these weights.
func (h *histogram) median(weight func(b int) float64) summary {
	var sum, sumSq float64
	for b, c := range h {
		if c > 0 {
			w := weight(b)
			sum += float64(c) * w
			sumSq += float64(c) * w * w
		}
	}
	if sum == 0 {
		return summary{}
	}
	half, acc := sum/2, 0.0
	for b, c := range h {
		w := float64(c) * weight(b)
		if w == 0 || acc+w < half {
			acc += w
			continue
		}
		// Within the bucket, spread its weight evenly over the times it
		// holds, each a whole millisecond standing for the half either side.
		lo, hi := bucketBounds(b)
		return summary{
			rtt:       float64(lo) - 0.5 + (half-acc)/w*float64(hi-lo),
			effective: sum * sum / sumSq,
		}
	}
	return summary{} // not reached: the weights add up to sum
}
