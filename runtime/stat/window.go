package stat

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// Event is one kind of count a bucket keeps.
type Event int

// The events a Window counts. RT is the sum of response times in
// milliseconds; the minimum RT is kept separately.
const (
	Pass Event = iota
	Block
	Success
	Exception
	RT
	numEvents
)

// DefaultMaxRT is Java's csp.sentinel.statistic.max.rt: the initial minimum
// RT of a bucket, and the value MinRT reports when nothing completed.
const DefaultMaxRT = 5000

// cell is one stripe of a bucket: one cache line. Every cell carries the
// bucket's start and size, so that a writer compares the start and adds
// its count on its own line: a call touches one line of a bucket, and
// processors counting on different stripes share none.
type cell struct {
	start  int64 // the bucket's; never changes
	n      int32 // the bucket's cells
	_      int32
	counts [numEvents]atomic.Int64
	minRT  atomic.Int64
}

// bucket holds the counts of one time slice: its cell 0, followed in the
// same allocation by its other cells (newBucket). Its start never changes:
// a stale bucket is replaced, not reset, so a writer that raced the
// replacement can tell (see Window.Add).
//
// A bucket holds no Go pointer, so the garbage collector never scans one,
// and a cell's address is the bucket's plus an offset: reading a count
// waits for no other load.
type bucket cell

// cell returns cell s, which must be below b.n. Readers use it; writers,
// which know the window's stripes, use stripe.
func (b *bucket) cell(s int) *cell {
	if uint(s) >= uint(b.n) {
		panic("stat: cell index out of range")
	}
	return b.stripe(s)
}

// stripe returns cell s without reading cell 0, whose line another
// processor may be writing. s must be below the window's stripes, which
// every bucket of the window has: callers mask their stripe with them.
func (b *bucket) stripe(s int) *cell {
	return (*cell)(unsafe.Add(unsafe.Pointer(b), uintptr(s)*unsafe.Sizeof(cell{})))
}

// newBucket allocates a bucket and its cells together. Its size, 64 bytes
// times a power of two up to 1 KiB, is a size class whose objects start at
// multiples of their size: each cell is exactly one cache line.
func newBucket(start int64, stripes int) *bucket {
	cs := make([]cell, stripes)
	for i := range cs {
		cs[i].start, cs[i].n = start, int32(stripes)
		cs[i].minRT.Store(DefaultMaxRT)
	}
	return (*bucket)(&cs[0])
}

func (b *bucket) sum(ev Event) int64 {
	var s int64
	for i := range int(b.n) {
		s += b.cell(i).counts[ev].Load()
	}
	return s
}

func (b *bucket) leastRT() int64 {
	m := int64(DefaultMaxRT)
	for i := range int(b.n) {
		m = min(m, b.cell(i).minRT.Load())
	}
	return m
}

// Window is Java Sentinel's LeapArray: sampleCount buckets of lenMs
// milliseconds covering intervalMs = sampleCount*lenMs. Its arithmetic is
// Java's: the bucket for time t starts at t-t%lenMs, and the window at t
// sums the buckets that are not stale (t-start > intervalMs, strictly),
// which are t's own bucket and the sampleCount-1 before it.
//
// A Window may keep more slots than it sums (retained history, so that the
// previous whole second can be read from a 2 x 500 ms window).
//
// A Window is lock-free and loses no count under concurrent writers: a
// stale bucket is replaced by a fresh one with compare-and-swap, and a writer
// that finds its bucket was replaced while it wrote adds again to the
// current one (the replaced bucket is unreachable, so nothing is counted
// twice).
type Window struct {
	// What every call reads comes first: the ring, and what TryAdd reads
	// too, in 32 bytes. A flow gate's window (GateMemory) has its ring
	// before them, a node's (NewNode) its second pointer and ring: each
	// one cache line.
	ring        *atomic.Pointer[bucket] // nslots of them (buckets)
	nslots      uint16
	sampleCount uint16
	lenMs       int32
	// reservedUntil is the start of the latest bucket Reserve counted in
	// (occupy.go); 0 when nothing was ever reserved.
	reservedUntil atomic.Int64
	// limit is a gate's admission limit (GateMemory), kept on the line
	// TryAdd reads so that a gate's check reads no other; 0 elsewhere.
	limit int64

	stripes    int
	intervalMs int64
	// history, when set, receives each bucket as it is retired (see
	// retire): a node keeps its minute of history that way, so calls write
	// one window, not two.
	history *Window
}

// buckets is the ring of bucket slots.
func (w *Window) buckets() []atomic.Pointer[bucket] { return unsafe.Slice(w.ring, w.nslots) }

// slot is the ring's slot i, for the calls' paths: cheaper than indexing
// buckets.
func (w *Window) slot(i int) *atomic.Pointer[bucket] {
	if uint(i) >= uint(w.nslots) {
		panic("stat: slot index out of range")
	}
	return (*atomic.Pointer[bucket])(unsafe.Add(unsafe.Pointer(w.ring), uintptr(i)*unsafe.Sizeof(*w.ring)))
}

// NewWindow returns a window of sampleCount buckets spanning intervalMs.
// intervalMs must be a positive multiple of sampleCount, sampleCount at
// most 65,535 and a bucket at most 2^31-1 ms. Its counters are not
// striped, so TryAdd is exact.
func NewWindow(sampleCount int, intervalMs int64) *Window {
	return newWindow(sampleCount, intervalMs, sampleCount, 1)
}

func newWindow(sampleCount int, intervalMs int64, slots, stripes int) *Window {
	w := &Window{}
	w.init(sampleCount, intervalMs, make([]atomic.Pointer[bucket], max(slots, sampleCount)), stripes)
	return w
}

// init shapes w as sampleCount buckets over intervalMs, on the ring slots.
func (w *Window) init(sampleCount int, intervalMs int64, slots []atomic.Pointer[bucket], stripes int) {
	if sampleCount <= 0 || intervalMs <= 0 || intervalMs%int64(sampleCount) != 0 {
		panic("stat: window interval must be a positive multiple of its sample count")
	}
	// Rule windows are seconds or minutes of a few dozen buckets: the
	// shape fits the small fields that keep TryAdd's reads on one line.
	if len(slots) > math.MaxUint16 || intervalMs/int64(sampleCount) > math.MaxInt32 {
		panic("stat: window too long or with too many slots")
	}
	w.lenMs = int32(intervalMs / int64(sampleCount))
	w.intervalMs = intervalMs
	w.sampleCount = uint16(sampleCount)
	w.stripes = stripes
	w.ring, w.nslots = &slots[0], uint16(len(slots))
}

// newSecondWindow returns a node's second window, striped, with its ring
// in the same allocation.
func newSecondWindow() *Window {
	a := &struct {
		w     Window
		slots [secondSlots]atomic.Pointer[bucket]
	}{}
	a.w.initSecond(a.slots[:])
	return &a.w
}

// initSecond makes w a node's second window on the ring slots.
func (w *Window) initSecond(slots []atomic.Pointer[bucket]) {
	w.init(SecondSampleCount, SecondIntervalMs, slots, stripeCount)
}

// SampleCount is the number of buckets the window sums.
func (w *Window) SampleCount() int { return int(w.sampleCount) }

// IntervalMs is the span the window covers.
func (w *Window) IntervalMs() int64 { return w.intervalMs }

// BucketMs is the span of one bucket.
func (w *Window) BucketMs() int64 { return int64(w.lenMs) }

// pos locates time now: the slot of its bucket and the bucket's start.
func (w *Window) pos(now int64) (slot *atomic.Pointer[bucket], start int64) {
	idx, start := w.locate(now)
	return w.slot(idx), start
}

// locate returns the index of now's slot and its bucket's start. Rule
// checks locate on every call, and a division by a variable costs tens of
// cycles: the shapes of the second window divide by constants.
func (w *Window) locate(now int64) (idx int, start int64) {
	const secLen = SecondIntervalMs / SecondSampleCount
	if w.lenMs == secLen && now >= 0 {
		n := now / secLen
		switch w.nslots {
		case SecondSampleCount:
			return int(n % SecondSampleCount), n * secLen
		case secondSlots:
			return int(n % secondSlots), n * secLen
		}
	}
	lenMs := int64(w.lenMs)
	n := now / lenMs
	return int(n % int64(w.nslots)), n * lenMs
}

// position is a located instant: a slot index and its bucket's start.
type position struct {
	idx   int
	start int64
}

// renew returns the bucket starting at start in slot, replacing a stale
// one. When the slot holds a newer bucket (the clock went back), that
// bucket is returned: the count lands in the newest slice rather than
// being lost. Writers call it only when the bucket in the slot is missing
// or stale (their common case, the current bucket, is one load inlined).
func (w *Window) renew(slot *atomic.Pointer[bucket], start int64) *bucket {
	for {
		b := slot.Load()
		if b != nil && b.start >= start {
			return b
		}
		nb := newBucket(start, w.stripes)
		if slot.CompareAndSwap(b, nb) {
			if b != nil && w.history != nil {
				for s := range int(b.n) {
					w.retire(b, s)
				}
			}
			return nb
		}
	}
}

// retire moves what cell s of the replaced bucket b counted into the
// history window. Counters are taken with Swap, so every count is moved
// exactly once, whether by the writer that replaced b or by a writer that
// added to b while it was being replaced (see add): none is lost and none
// is counted twice.
func (w *Window) retire(b *bucket, s int) {
	c := b.cell(s)
	for ev := range numEvents {
		if v := c.counts[ev].Swap(0); v != 0 {
			w.history.record(b.start, ev, v)
		}
	}
	if m := c.minRT.Swap(DefaultMaxRT); m < DefaultMaxRT {
		w.history.recordMinRT(b.start, m)
	}
}

// historyBucket returns the history's bucket for time at, creating it, or
// nil when that time has left the window (a newer bucket holds its slot).
func (w *Window) historyBucket(at int64) (*atomic.Pointer[bucket], *bucket) {
	slot, start := w.pos(at)
	for {
		b := slot.Load()
		switch {
		case b != nil && b.start == start:
			return slot, b
		case b != nil && b.start > start:
			return slot, nil
		}
		nb := newBucket(start, w.stripes)
		if slot.CompareAndSwap(b, nb) {
			return slot, nb
		}
	}
}

// record adds n events of kind ev at time at to a history window, unless
// that time has left it.
func (w *Window) record(at int64, ev Event, n int64) {
	for {
		slot, b := w.historyBucket(at)
		if b == nil {
			return
		}
		b.cell(0).counts[ev].Add(n)
		if slot.Load() == b {
			return
		}
	}
}

// recordMinRT lowers a history window's minimum RT at time at to rt.
func (w *Window) recordMinRT(at, rt int64) {
	for {
		slot, b := w.historyBucket(at)
		if b == nil {
			return
		}
		c := b.cell(0)
		for {
			m := c.minRT.Load()
			if rt >= m || c.minRT.CompareAndSwap(m, rt) {
				break
			}
		}
		if slot.Load() == b {
			return
		}
	}
}

// Add counts n events of kind ev at time now.
func (w *Window) Add(now int64, ev Event, n int64) {
	slot, start := w.pos(now)
	w.add(slot, start, stripe(w.stripes), ev, n)
}

func (w *Window) add(slot *atomic.Pointer[bucket], start int64, s int, ev Event, n int64) {
	for {
		// The common case, a current bucket, reads the slot and cell s's
		// line only: s is below w.stripes (see bucket.stripe).
		b := slot.Load()
		var c *cell
		if b != nil {
			c = b.stripe(s)
		}
		if c == nil || c.start < start {
			b = w.renew(slot, start)
			c = b.cell(s)
		}
		c.counts[ev].Add(n)
		if slot.Load() == b {
			return
		}
		// b was replaced while we wrote. With a history, what we added
		// goes there with b's other counts; without one, add again to the
		// bucket now in the slot.
		if w.history != nil {
			w.retire(b, s)
			return
		}
	}
}

// AddCompletion counts n successes with a total response time of rt
// milliseconds, n exceptions as well when failed, and updates the minimum
// RT.
func (w *Window) AddCompletion(now, rt, n int64, failed bool) {
	slot, start := w.pos(now)
	w.addCompletion(slot, start, stripe(w.stripes), rt, n, failed)
}

func (w *Window) addCompletion(slot *atomic.Pointer[bucket], start int64, s int, rt, n int64, failed bool) {
	for {
		// The common case, a current bucket, reads the slot and cell s's
		// line only: s is below w.stripes (see bucket.stripe).
		b := slot.Load()
		var c *cell
		if b != nil {
			c = b.stripe(s)
		}
		if c == nil || c.start < start {
			b = w.renew(slot, start)
			c = b.cell(s)
		}
		c.counts[Success].Add(n)
		if rt != 0 { // calls under a millisecond, the many: spare a locked add
			c.counts[RT].Add(rt)
		}
		if failed {
			c.counts[Exception].Add(n)
		}
		for {
			m := c.minRT.Load()
			if rt >= m || c.minRT.CompareAndSwap(m, rt) {
				break
			}
		}
		if slot.Load() == b {
			return
		}
		if w.history != nil {
			w.retire(b, s)
			return
		}
	}
}

// TryAdd adds n events of kind ev at time now only if the window's total of
// ev stays at or below limit, and reports whether it did. The check and the
// add are one atomic step among writers that all go through TryAdd, so
// concurrent callers never push the total past limit. Only unstriped
// windows (NewWindow, NewOccupiableWindow) support it.
//
// After a Reserve, the windows to come that hold now's bucket must stay
// within limit too: an add that would push one of them past it (because a
// reservation landed meanwhile) is taken back, and TryAdd reports false.
// Reserve and TryAdd each write, then read what the other wrote, so of two
// racing writers at least one sees the other; a writer that finds the
// limit passed takes its own count back.
func (w *Window) TryAdd(now int64, ev Event, n, limit int64) bool {
	idx, start := w.locate(now)
	slot := w.slot(idx)
	for {
		b := slot.Load() // the common case: the bucket is current
		if b == nil || b.start < start {
			b = w.renew(slot, start)
		}
		if b.n != 1 { // the bucket's line, read anyway: every bucket has the window's stripes
			panic("stat: TryAdd on a striped window")
		}
		// The window's other buckets, by position, walking the ring
		// back from now's slot: no scan of the future slots of an
		// occupiable ring, and no division.
		var others int64
		for j, t, k := idx, start, 1; k < int(w.sampleCount); k++ {
			if j == 0 {
				j = int(w.nslots)
			}
			j, t = j-1, t-int64(w.lenMs)
			if o := w.slot(j).Load(); o != nil && o.start == t {
				others += o.stripe(0).counts[ev].Load()
			}
		}
		c := &b.stripe(0).counts[ev]
		for {
			cur := c.Load()
			if others+cur+n > limit {
				return false
			}
			if c.CompareAndSwap(cur, cur+n) {
				break
			}
		}
		if slot.Load() == b {
			if w.reservedAfter(start) && !w.Fits(now, ev, limit) {
				c.Add(-n)
				return false
			}
			return true
		}
	}
}

// AddAt amends a count made at time at: it adds n (which may be negative) to
// the bucket that held time at, if that bucket is still in the ring, and
// reports whether it did.
func (w *Window) AddAt(at int64, ev Event, n int64) bool {
	slot, start := w.pos(at)
	b := slot.Load()
	if b == nil {
		return false
	}
	c := b.stripe(stripe(w.stripes))
	if c.start != start {
		return false
	}
	c.counts[ev].Add(n)
	return true
}

// inWindow reports whether a bucket starting at start counts toward the
// window whose newest bucket starts at cur.
func (w *Window) inWindow(start, cur int64) bool {
	return start <= cur && start > cur-w.intervalMs
}

// Sum returns the total of ev over the window at time now.
func (w *Window) Sum(now int64, ev Event) int64 {
	_, cur := w.pos(now)
	return w.sumWhere(cur, ev, nil)
}

func (w *Window) sumWhere(cur int64, ev Event, skip *bucket) int64 {
	var sum int64
	for i := range w.buckets() {
		if b := w.buckets()[i].Load(); b != nil && b != skip && w.inWindow(b.start, cur) {
			sum += b.sum(ev)
		}
	}
	return sum
}

// SumRange returns the total of ev over the retained buckets that start in
// [from, to).
func (w *Window) SumRange(from, to int64, ev Event) int64 {
	var sum int64
	for i := range w.buckets() {
		if b := w.buckets()[i].Load(); b != nil && b.start >= from && b.start < to {
			sum += b.sum(ev)
		}
	}
	return sum
}

// MinRT returns the smallest response time completed in the window, at least
// 1, or DefaultMaxRT when nothing completed (Java's ArrayMetric.minRt).
func (w *Window) MinRT(now int64) int64 {
	_, cur := w.pos(now)
	m := int64(DefaultMaxRT)
	for i := range w.buckets() {
		if b := w.buckets()[i].Load(); b != nil && w.inWindow(b.start, cur) {
			m = min(m, b.leastRT())
		}
	}
	return max(m, 1)
}

// Max returns the largest count of ev in any one bucket of the window, at
// least 1 (Java's ArrayMetric.maxSuccess).
func (w *Window) Max(now int64, ev Event) int64 {
	_, cur := w.pos(now)
	m := int64(1)
	for i := range w.buckets() {
		if b := w.buckets()[i].Load(); b != nil && w.inWindow(b.start, cur) {
			m = max(m, b.sum(ev))
		}
	}
	return m
}

// Previous returns the count of ev in the bucket just before now's, or 0
// when that bucket is not in the ring (Java's previousWindow).
func (w *Window) Previous(now int64, ev Event) int64 {
	slot, start := w.pos(now - int64(w.lenMs))
	b := slot.Load()
	if b == nil || b.start != start {
		return 0
	}
	return b.sum(ev)
}

// Counts is a snapshot of one bucket.
type Counts struct {
	Start     int64 `json:"start"` // Unix ms
	Pass      int64 `json:"pass"`
	Block     int64 `json:"block"`
	Success   int64 `json:"success"`
	Exception int64 `json:"exception"`
	RT        int64 `json:"rt"`
	MinRT     int64 `json:"minRt"`
}

// Buckets returns the buckets of the window at time now, oldest first.
func (w *Window) Buckets(now int64) []Counts {
	_, cur := w.pos(now)
	out := make([]Counts, 0, w.sampleCount)
	for i := range w.buckets() {
		b := w.buckets()[i].Load()
		if b == nil || !w.inWindow(b.start, cur) {
			continue
		}
		out = append(out, Counts{
			Start:     b.start,
			Pass:      b.sum(Pass),
			Block:     b.sum(Block),
			Success:   b.sum(Success),
			Exception: b.sum(Exception),
			RT:        b.sum(RT),
			MinRT:     b.leastRT(),
		})
	}
	// Insertion sort: the ring is short and nearly ordered.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Start < out[j-1].Start; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// seed adds what each bucket of from holds to w's bucket of the same
// start, unless a newer bucket holds that slot in w. Both windows have the
// same shape.
func (w *Window) seed(from *Window) {
	for i := range from.buckets() {
		b := from.buckets()[i].Load()
		if b == nil {
			continue
		}
		slot := &w.buckets()[i]
		var dst *bucket
		for {
			cur := slot.Load()
			if cur != nil && cur.start >= b.start {
				if cur.start == b.start {
					dst = cur
				}
				break
			}
			nb := newBucket(b.start, w.stripes)
			if slot.CompareAndSwap(cur, nb) {
				dst = nb
				break
			}
		}
		if dst == nil {
			continue // w moved past that slice already
		}
		c := dst.cell(0)
		for ev := range numEvents {
			if v := b.sum(ev); v != 0 {
				c.counts[ev].Add(v)
			}
		}
		if m := b.leastRT(); m < DefaultMaxRT {
			for {
				cur := c.minRT.Load()
				if m >= cur || c.minRT.CompareAndSwap(cur, m) {
					break
				}
			}
		}
	}
}
