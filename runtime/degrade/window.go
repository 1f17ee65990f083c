package degrade

import "sync/atomic"

// window is a breaker's statistics: Java's LeapArray of one bucket of
// statIntervalMs, that is a tumbling window whose buckets start at
// multiples of the interval. A bucket counts completed calls and the bad
// ones among them (slow, or failed). A new interval replaces the bucket
// (one small allocation per interval in which calls complete), and reset
// replaces it early, as Java's resetStat zeroes the current bucket.
type window struct {
	interval int64
	cur      atomic.Pointer[bucket]
}

type bucket struct {
	start int64
	total atomic.Int64
	bad   atomic.Int64
}

func newWindow(intervalMs int64) *window { return &window{interval: intervalMs} }

func (w *window) start(now int64) int64 {
	s := now - now%w.interval
	if now < 0 && now%w.interval != 0 {
		s -= w.interval
	}
	return s
}

// at returns the bucket for time now, replacing a bucket of an earlier
// interval. A bucket of a later interval (the clock went back) is kept, so
// counts land in the newest interval rather than resetting it.
func (w *window) at(now int64) *bucket {
	start := w.start(now)
	for {
		b := w.cur.Load()
		if b != nil && b.start >= start {
			return b
		}
		nb := &bucket{start: start}
		if w.cur.CompareAndSwap(b, nb) {
			return nb
		}
	}
}

// add counts one completed call at now and returns the bucket's totals,
// this call included.
func (w *window) add(now int64, bad bool) (total, badCount int64) {
	b := w.at(now)
	if bad {
		badCount = b.bad.Add(1)
		total = b.total.Add(1)
	} else {
		total = b.total.Add(1)
		badCount = b.bad.Load()
	}
	return total, badCount
}

// counts returns the totals of the bucket for time now.
func (w *window) counts(now int64) (total, badCount int64) {
	b := w.cur.Load()
	if b == nil || b.start != w.start(now) {
		return 0, 0
	}
	return b.total.Load(), b.bad.Load()
}

// reset empties the current interval.
func (w *window) reset(now int64) { w.cur.Store(&bucket{start: w.start(now)}) }
