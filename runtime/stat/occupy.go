package stat

import (
	"sync/atomic"
	"unsafe"
)

// Occupiable windows: Java's OccupiableBucketLeapArray, whose
// FutureBucketLeapArray holds the passes that prioritized calls borrowed
// from windows still to come (StatisticNode.addWaitingRequest). Here the
// borrowed passes go straight into the future bucket of the same ring, which
// keeps twice the buckets it sums: when that bucket's time comes it already
// holds them, as Java's newEmptyBucket copies the borrowed count in.

// NewOccupiableWindow returns an unstriped window, like NewWindow, that
// also keeps room for sampleCount future buckets, so that Reserve can count
// passes in the windows to come. Its ring holds 2*sampleCount buckets, so
// sampleCount is at most 32,767.
func NewOccupiableWindow(sampleCount int, intervalMs int64) *Window {
	if sampleCount == SecondSampleCount && intervalMs == SecondIntervalMs {
		// The ring and the window in one allocation of 128 bytes, a size
		// class whose objects start on a cache line.
		a := &struct {
			m GateMemory
			_ [128 - unsafe.Sizeof(GateMemory{})]byte
		}{}
		return a.m.Init(0)
	}
	return newWindow(sampleCount, intervalMs, 2*sampleCount, 1)
}

// GateMemory is the memory of a flow gate's window, an occupiable second
// window (2 x 500 ms) and its ring, for a caller that allocates it within
// its own object at a line's start: what a gate's check reads, the ring,
// the window's first 32 bytes and the gate's limit among them, is then
// that first line.
type GateMemory struct {
	slots [2 * SecondSampleCount]atomic.Pointer[bucket]
	w     Window
}

// Init makes m's window, as NewOccupiableWindow(SecondSampleCount,
// SecondIntervalMs) does, with limit as its Limit, and returns it. m must
// be zero.
func (m *GateMemory) Init(limit int64) *Window {
	m.w.init(SecondSampleCount, SecondIntervalMs, m.slots[:], 1)
	m.w.limit = limit
	return &m.w
}

// Window is m's window, once Init made it.
func (m *GateMemory) Window() *Window { return &m.w }

// Limit is the limit the window was made with (GateMemory.Init): what a
// gate passes to TryAdd, read from the line TryAdd reads. It is 0 for
// other windows.
func (w *Window) Limit() int64 { return w.limit }

// Reserve counts n events of kind ev in the future bucket that holds time
// at (Java's addWaitingRequest). at must be later than now's bucket and at
// most SampleCount buckets ahead of it, on a window from
// NewOccupiableWindow. From then on TryAdd keeps every window the bucket
// falls in within its limit, not only the current one. AddAt(at, ev, -n)
// takes a reservation back.
func (w *Window) Reserve(at int64, ev Event, n int64) {
	slot, start := w.pos(at)
	for {
		until := w.reservedUntil.Load()
		if until >= start || w.reservedUntil.CompareAndSwap(until, start) {
			break
		}
	}
	w.add(slot, start, 0, ev, n)
}

// Waiting is the total of ev in buckets that start after now: passes
// borrowed from windows to come (Java's currentWaiting, which counts the
// future buckets whose start is after now).
func (w *Window) Waiting(now int64, ev Event) int64 {
	var sum int64
	for i := range w.buckets() {
		if b := w.buckets()[i].Load(); b != nil && b.start > now {
			sum += b.sum(ev)
		}
	}
	return sum
}

// BucketSum is the count of ev in the bucket that holds time at, 0 when the
// ring no longer (or not yet) holds it (Java's getWindowPass).
func (w *Window) BucketSum(at int64, ev Event) int64 {
	slot, start := w.pos(at)
	if b := slot.Load(); b != nil && b.start == start {
		return b.sum(ev)
	}
	return 0
}

// Fits reports whether every window that holds time at's bucket, the
// reserved future buckets included, totals at most limit of ev.
func (w *Window) Fits(at int64, ev Event, limit int64) bool {
	_, start := w.pos(at)
	k, lenMs := int64(w.sampleCount), int64(w.lenMs)
	for first := start - (k-1)*lenMs; first <= start; first += lenMs {
		var sum int64
		for t := first; t < first+k*lenMs; t += lenMs {
			sum += w.BucketSum(t, ev)
		}
		if sum > limit {
			return false
		}
	}
	return true
}

// reservedAfter reports whether a reservation may lie after the bucket
// starting at start, in which case TryAdd checks the windows to come too.
func (w *Window) reservedAfter(start int64) bool {
	return w.reservedUntil.Load() > start
}
