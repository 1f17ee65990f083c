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

// bucket is one interval's counts: a header, followed in the same
// allocation by its striped cells (newBucket). It holds no Go pointer, so
// the garbage collector never scans one, and a cell's address is the
// bucket's plus an offset.
type bucket struct {
	start int64
	bad   atomic.Int64
	early atomic.Int64 // completions while the bucket held fewer than minRequests
	n     int32        // cells: completions after that, striped by processor
	off   int32        // the first cell's offset from the bucket's address
}

// cell returns cell s, which must be below b.n.
func (b *bucket) cell(s int) *cell {
	if uint(s) >= uint(b.n) {
		panic("degrade: cell index out of range")
	}
	return (*cell)(unsafe.Add(unsafe.Pointer(b), uintptr(b.off)+uintptr(s)*unsafe.Sizeof(cell{})))
}

type cell struct {
	// n is written by one processor only (count.go), read atomically.
	n int64
	_ [56]byte // one cache line each
}

func (w *window) start(now int64) int64 {
	s := now - now%w.interval
	if now < 0 && now%w.interval != 0 {
		s -= w.interval
	}
	return s
}

// newBucket allocates a bucket and its cells together. With more than one
// cell the header is padded to a cache line: objects of these sizes start
// at multiples of their size, so each cell keeps a line of its own.
// Stripes are a power of two, at most 16 (stat.Stripes).
func newBucket(start int64) *bucket {
	var b *bucket
	switch stripes {
	case 1:
		// One cell shares no line with another's: no padding.
		a := &struct {
			b bucket
			c [1]cell
		}{}
		a.b.n, a.b.off, b = 1, int32(unsafe.Offsetof(a.c)), &a.b
	case 2:
		b = paddedBucket[[2]cell](2)
	case 4:
		b = paddedBucket[[4]cell](4)
	case 8:
		b = paddedBucket[[8]cell](8)
	default:
		b = paddedBucket[[16]cell](16)
	}
	b.start = start
	return b
}

// paddedBucket allocates a bucket whose header is padded to a cache line,
// followed by the n cells of A.
func paddedBucket[A any](n int32) *bucket {
	a := &struct {
		b bucket
		_ [64 - unsafe.Sizeof(bucket{})]byte
		c A
	}{}
	a.b.n, a.b.off = n, int32(unsafe.Offsetof(a.c))
	return &a.b
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
	b := w.cur.Load() // the common case, without a division
	if b == nil || now < b.start || now-b.start >= w.interval {
		b = w.renew(now)
	}
	if bad {
		b.bad.Add(1)
	}
	if b.early.Load() < w.minRequests {
		n := b.early.Add(1)
		if n < w.minRequests {
			return false, 0, 0
		}
		check = n == w.minRequests || bad
	} else {
		b.countPastMin(stripe)
		check = bad
	}
	if !check {
		return false, 0, 0
	}
	total = b.early.Load()
	for i := range int(b.n) {
		total += atomic.LoadInt64(&b.cell(i).n)
	}
	return true, total, b.bad.Load()
}

// reset empties the current interval.
func (w *window) reset(now int64) { w.cur.Store(newBucket(w.start(now))) }

// Striping by processor, as package runtime/stat does; a call brings its
// stripe (runtime.Call.Stripe).
var stripes = stat.Stripes()
