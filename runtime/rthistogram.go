package runtime

import (
	"context"
	"sync/atomic"
	"unsafe"

	"github.com/sentinelgen/sentinelgen/internal/clock"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// Response-time histograms. The statistics keep, per second, the sum and
// the smallest of response times in whole milliseconds of a cached clock
// (as Java does): enough for means and rules, not for percentiles, and a
// Go handler's 300 µs reads as 0 or 1 ms. A resource whose histogram is
// on (EnableRTHistogram) also counts each completed call in one of a fixed
// set of microsecond buckets, timed with the system's monotonic clock.
//
// What it costs such a call: two clock readings (tens of nanoseconds
// each), the bucket's and the sum's atomic adds on the processor's own
// stripe, and an entry 8 bytes larger (the next allocation size class).
// Resources without a histogram pay one atomic load at entry and a flag
// test at exit.

// rtBounds are the buckets' upper bounds in microseconds: 25 µs to 10 s,
// about three to a decade (Prometheus's and OpenTelemetry's default
// duration buckets reach down to 5 ms only).
var rtBounds = [...]int64{
	25, 50, 100, 250, 500,
	1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
	1_000_000, 2_500_000, 5_000_000, 10_000_000,
}

// RTHistogramBounds returns the histogram buckets' upper bounds in
// microseconds, ascending: a call that took exactly a bound counts in its
// bucket (Prometheus's le). A last bucket, without a bound, counts the
// calls slower than every bound.
func RTHistogramBounds() []int64 { return append([]int64(nil), rtBounds[:]...) }

// RTHistogram is a resource's response-time distribution since its
// histogram was turned on: calls, not tokens (a call WithBatchCount(5)
// counts once), admitted calls that exited.
type RTHistogram struct {
	// Bounds are the upper bounds, in microseconds (RTHistogramBounds).
	Bounds []int64
	// Counts holds the calls per bucket, not cumulative: Counts[i] took at
	// most Bounds[i] and more than Bounds[i-1]; the last, at index
	// len(Bounds), took longer than every bound.
	Counts []int64
	// Count is the sum of Counts; SumMicros the sum of the response times.
	Count     int64
	SumMicros int64
}

// rtStripe is one processor stripe of a histogram, three cache lines.
type rtStripe struct {
	counts [len(rtBounds) + 1]atomic.Int64
	sum    atomic.Int64
	_      [4]int64
}

// rtHistogram is a resource's histogram, striped as package stat stripes
// its windows: a call adds on the stripe its pass counted on.
type rtHistogram struct {
	stripes []rtStripe
}

func (h *rtHistogram) observe(stripe int, micros int64) {
	s := &h.stripes[stripe&(len(h.stripes)-1)]
	i := 0
	for i < len(rtBounds) && micros > rtBounds[i] {
		i++
	}
	s.counts[i].Add(1)
	s.sum.Add(micros)
}

func (h *rtHistogram) snapshot() RTHistogram {
	out := RTHistogram{Bounds: RTHistogramBounds(), Counts: make([]int64, len(rtBounds)+1)}
	for s := range h.stripes {
		st := &h.stripes[s]
		for i := range st.counts {
			out.Counts[i] += st.counts[i].Load()
		}
		out.SumMicros += st.sum.Load()
	}
	for _, n := range out.Counts {
		out.Count += n
	}
	return out
}

// EnableRTHistogram turns on the response-time histogram of the resource
// named name, declaring the resource when it is new (kept past
// MaxResources as declared resources are), and returns the resource. See
// Resource.EnableRTHistogram.
func EnableRTHistogram(name string) *Resource {
	r := resourceNamed(name, true)
	r.EnableRTHistogram()
	return r
}

// EnableRTHistogram turns on r's response-time histogram: from then on,
// every call entered on r that exits is counted in microsecond buckets
// (RTHistogramBounds), which package runtime/metrics exports as a
// Prometheus histogram and package sentinelotel as an OpenTelemetry one.
// It stays on for the life of the process, so its counts only grow;
// turning it on again changes nothing. It costs each of r's calls 65 to
// 100 ns on a 2-core VM (two readings of the monotonic clock, two atomic
// adds and a larger entry); other resources' calls pay nothing
// measurable.
func (r *Resource) EnableRTHistogram() {
	if r.rtHist.Load() != nil {
		return
	}
	h := &rtHistogram{stripes: make([]rtStripe, stat.Stripes())}
	r.rtHist.CompareAndSwap(nil, h)
}

// RTHistogram returns r's response-time distribution, and false when its
// histogram is off.
func (r *Resource) RTHistogram() (RTHistogram, bool) {
	h := r.rtHist.Load()
	if h == nil {
		return RTHistogram{}, false
	}
	return h.snapshot(), true
}

// timedEntry is the entry of a call whose resource keeps a histogram: the
// entry, then its start on the monotonic clock, in one allocation. The
// entry's timed flag says it is one, so that Exit can find the start.
type timedEntry struct {
	e          SentinelEntry
	startNanos int64
}

// enterTimed is enter for an entry allocated as a timedEntry (first in
// its allocation, as every entry is).
func (r *Resource) enterTimed(t *timedEntry, ctx context.Context, opts []EntryOption) (*SentinelEntry, *BlockError) {
	t.e.flags |= timed
	t.startNanos = clock.Nanos()
	return r.enter(&t.e, ctx, opts)
}

// observeRT counts the response time of e, a timedEntry's entry, in its
// resource's histogram.
func (e *SentinelEntry) observeRT() {
	h := e.call.res.rtHist.Load()
	if h == nil {
		return
	}
	t := (*timedEntry)(unsafe.Pointer(e))
	h.observe(int(e.stripe), max(clock.Nanos()-t.startNanos, 0)/1000)
}
