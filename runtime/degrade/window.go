package degrade

import (
	"sync/atomic"
	"unsafe"

	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// window is a breaker's statistics: Java's LeapArray of one bucket of
// statIntervalMs, that is a tumbling window whose buckets start at
// multiples of the interval. A bucket counts completed calls and the bad
// ones among them (slow, or failed). A new interval replaces the bucket
// (one small allocation per interval in which calls complete), and reset
// replaces it early, as Java's resetStat zeroes the current bucket.
//
// The count of calls is written by every completion, so past the first
// minRequests of a bucket it is striped by processor, as Java's LongAdder
// and the runtime's node counters are: parallel callers do not fight over
// one cache line. The first minRequests are counted on one counter so that
// exactly one completion sees the bucket reach minRequests.
type window struct {
	interval    int64
	minRequests int64
	cur         atomic.Pointer[bucket]
}

// bucket is one interval's counts: a header, padded to a cache line,
// followed in the same allocation by its striped cells (newBucket). It
// holds no Go pointer, so the garbage collector never scans one, and a
// cell's address is the bucket's plus an offset.
type bucket struct {
	start int64
	bad   atomic.Int64
	early atomic.Int64 // completions while the bucket held fewer than minRequests
	n     int32        // cells: completions after that, striped by processor
	_     [64 - 28]byte
}

// cell returns cell s, which must be below b.n.
func (b *bucket) cell(s int) *cell {
	if uint(s) >= uint(b.n) {
		panic("degrade: cell index out of range")
	}
	return b.stripe(s)
}

// stripe returns cell s without reading the header, whose line every
// processor writes until the bucket holds minRequests completions; s is
// masked with stripes, which every bucket has.
func (b *bucket) stripe(s int) *cell {
	return (*cell)(unsafe.Add(unsafe.Pointer(b), unsafe.Sizeof(bucket{})+uintptr(s)*unsafe.Sizeof(cell{})))
}

// cell is one stripe's line. It carries the bucket's start, and whether
// this stripe has seen the bucket reach minRequests, so that past the
// first completions a good one reads and writes this line only.
type cell struct {
	n     atomic.Int64
	start int64 // the bucket's
	past  atomic.Bool
	_     [64 - 20]byte // one cache line each
}

func (w *window) start(now int64) int64 {
	s := now - now%w.interval
	if now < 0 && now%w.interval != 0 {
		s -= w.interval
	}
	return s
}

// newBucket allocates a bucket and its cells together: 64 bytes per line,
// in a size class that is a multiple of 64 (128, 192, 320, 576, 1152), so
// the object, and each of its lines, starts on a cache line. Stripes are
// a power of two, at most 16 (stat.Stripes).
func newBucket(start int64) *bucket {
	var b *bucket
	switch stripes {
	case 1:
		b = &new(struct {
			b bucket
			c [1]cell
		}).b
	case 2:
		b = &new(struct {
			b bucket
			c [2]cell
		}).b
	case 4:
		b = &new(struct {
			b bucket
			c [4]cell
		}).b
	case 8:
		b = &new(struct {
			b bucket
			c [8]cell
		}).b
	default:
		b = &new(struct {
			b bucket
			c [16]cell
		}).b
	}
	b.start, b.n = start, int32(stripes)
	for i := range stripes {
		b.stripe(i).start = start
	}
	return b
}

// renew returns the bucket for time now when the current one is not,
// replacing a bucket of an earlier interval. A bucket of a later interval
// (the clock went back) is kept, so counts land in the newest interval
// rather than resetting it.
func (w *window) renew(now int64) *bucket {
	start := w.start(now)
	for {
		b := w.cur.Load()
		if b != nil && b.start >= start {
			return b
		}
		nb := newBucket(start)
		if w.cur.CompareAndSwap(b, nb) {
			return nb
		}
	}
}

// add counts one completed call at now. It reports whether the breaker
// must compare its measure with the threshold, and then the bucket's
// totals, this call included. A bucket below minRequests never opens a
// breaker (Java), and past it only a bad call can raise the measure (a good
// one lowers a ratio and leaves a count), so only the completion that
// brings the bucket to minRequests and bad completions after it check.
func (w *window) add(now int64, stripe int, bad bool) (check bool, total, badCount int64) {
	stripe &= stripes - 1
	b := w.cur.Load() // the common case, without a division
	var c *cell
	if b != nil {
		c = b.stripe(stripe)
	}
	if c == nil || now < c.start || now-c.start >= w.interval {
		b = w.renew(now)
		c = b.cell(stripe)
	}
	if bad {
		b.bad.Add(1)
	}
	switch {
	case c.past.Load():
		c.n.Add(1)
		check = bad
	case b.early.Load() < w.minRequests:
		n := b.early.Add(1)
		if n < w.minRequests {
			return false, 0, 0
		}
		check = n == w.minRequests || bad
	default:
		c.past.Store(true) // early never falls: this stripe need not read it again
		c.n.Add(1)
		check = bad
	}
	if !check {
		return false, 0, 0
	}
	total = b.early.Load()
	for i := range int(b.n) {
		total += b.cell(i).n.Load()
	}
	return true, total, b.bad.Load()
}

// reset empties the current interval.
func (w *window) reset(now int64) { w.cur.Store(newBucket(w.start(now))) }

// Striping by processor, as package runtime/stat does; a call brings its
// stripe (runtime.Call.Stripe).
var stripes = stat.Stripes()
