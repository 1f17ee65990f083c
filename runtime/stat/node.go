// Package stat holds the runtime's statistics: Java Sentinel's sliding
// windows (LeapArray) and the StatisticNode built from them.
//
// Every method takes the time as a Unix millisecond argument instead of
// reading a clock, so that a call reads the clock once and tests drive the
// arithmetic directly.
package stat

import (
	"sync/atomic"
	"unsafe"
)

// Java's window shapes: the second window has 2 buckets of 500 ms
// (SampleCountProperty, IntervalProperty), the minute window 60 of 1 s.
const (
	SecondSampleCount = 2
	SecondIntervalMs  = 1000
	MinuteSampleCount = 60
	MinuteIntervalMs  = 60_000
)

// secondSlots retains two more 500 ms buckets than the second window sums,
// so that the previous whole second is always readable from it.
const secondSlots = 4

// Node is Java's StatisticNode: a second window for the rule checks, an
// optional minute of history, and the count of calls in flight. Its
// counters are striped by processor (see stripe.go).
//
// Calls write the second window only. Its ring keeps four 500 ms buckets,
// and a bucket whose slot is reused (two seconds on) is moved into the
// minute window, so history costs a call nothing; History merges the two.
type Node struct {
	// base is NewSharingNode's base, nil for other nodes. parts lists,
	// on a base, the nodes whose calls in flight are also its own
	// (share.go); inBase marks such a node.
	base   *Node
	minute *Window // nil without history
	parts  atomic.Pointer[[]*Node]

	// What a call reads comes last, in 24 bytes: the node's allocations
	// place them on one cache line (NewNode, and the runtime's nodes).

	// threads are the calls in flight, one line per stripe (thread).
	threads *paddedInt
	inBase  bool
	// second is the window rule checks read: the node's own, or, for a
	// node made with NewSharingNode, its base's until CountApart
	// (share.go).
	second atomic.Pointer[Window]
}

type paddedInt struct {
	v atomic.Int64
	_ [56]byte
}

// newThreads allocates a node's counts of calls in flight: one line per
// stripe (objects of 64 bytes times a power of two start at multiples of
// their size).
func newThreads() *paddedInt { return &make([]paddedInt, stripeCount)[0] }

// thread is stripe s's count of calls in flight; s is below stripeCount,
// as a Tick's stripe is.
func (n *Node) thread(s int) *atomic.Int64 {
	return &(*paddedInt)(unsafe.Add(unsafe.Pointer(n.threads), uintptr(s)*unsafe.Sizeof(paddedInt{}))).v
}

// nodeLead places a node's second at a line's start in NewNode's
// allocation, with the ring and the window's first fields after it: the
// one line a call reads there.
const nodeLead = 64 - unsafe.Offsetof(Node{}.second)

// NewNode returns a node with Java's window shapes. With history it also
// keeps a minute of per-second counts (see History); the
// runtime keeps history on each resource's ClusterNode and the inbound
// node, which is what metrics and the dashboard read.
func NewNode(history bool) *Node { return new(NodeMemory).Init(history) }

// NodeMemory is the memory of a node as NewNode allocates it, 192 bytes,
// for a caller that allocates it within its own object, at an offset that
// is a multiple of 64 bytes from a line's start: the node, its window and
// its ring, placed so that a call reads the node's second, the ring and
// the window's pointer to it from the second cache line.
type NodeMemory struct {
	_     [nodeLead]byte
	n     Node
	slots [secondSlots]atomic.Pointer[bucket]
	w     Window
	_     [192 - nodeLead - unsafe.Sizeof(Node{}) - secondSlots*8 - unsafe.Sizeof(Window{})]byte
}

// Init makes m's node, as NewNode does, and returns it. m must be zero.
func (m *NodeMemory) Init(history bool) *Node {
	n, w := &m.n, &m.w
	w.initSecond(m.slots[:])
	n.threads = newThreads()
	if history {
		n.minute = newWindow(MinuteSampleCount, MinuteIntervalMs, MinuteSampleCount, 1)
		w.history = n.minute
	}
	n.second.Store(w)
	return n
}

// SecondWindow is the window rule checks read.
func (n *Node) SecondWindow() *Window { return n.second.Load() }

// History returns the node's counts per second over the last minute, the
// current second included, oldest first; seconds without a bucket are left
// out. It is empty for a node without history.
func (n *Node) History(now int64) []Counts {
	cur := now - now%1000
	return n.seconds(cur-(MinuteSampleCount-1)*1000, cur)
}

// WholeSeconds returns the node's counts for each whole second from
// from's to the one before now's, oldest first, at most the
// MinuteSampleCount seconds before now's; seconds without a bucket are
// left out. The oldest of the minute is still held during now's second:
// its slot is only reused when now's second moves there, two seconds on.
// Only the seconds asked for are summed. It is empty for a node without
// history.
func (n *Node) WholeSeconds(now, from int64) []Counts {
	cur := now - now%1000
	return n.seconds(max(from-from%1000, cur-MinuteSampleCount*1000), cur-1000)
}

// seconds merges the minute and the ring into one Counts per second from
// from to cur (Unix ms of whole seconds, both included, at most
// MinuteSampleCount seconds).
func (n *Node) seconds(from, cur int64) []Counts {
	if n.minute == nil {
		return nil
	}
	var secs [MinuteSampleCount]Counts
	var seen [MinuteSampleCount]bool
	merge := func(start int64, b *bucket) {
		sec := start - start%1000
		if sec < from || sec > cur {
			return
		}
		i := (sec - from) / 1000
		c := &secs[i]
		if !seen[i] {
			seen[i] = true
			*c = Counts{Start: sec, MinRT: DefaultMaxRT}
		}
		c.Pass += b.sum(Pass)
		c.Block += b.sum(Block)
		c.Success += b.sum(Success)
		c.Exception += b.sum(Exception)
		c.RT += b.sum(RT)
		c.MinRT = min(c.MinRT, b.leastRT())
	}
	for i := range n.minute.buckets() {
		if b := n.minute.buckets()[i].Load(); b != nil {
			merge(b.start, b)
		}
	}
	// Buckets still in the ring have not been moved to the minute: a
	// bucket is in one or the other, never both.
	second := n.second.Load()
	for i := range second.buckets() {
		if b := second.buckets()[i].Load(); b != nil {
			merge(b.start, b)
		}
	}
	k := 0
	for _, ok := range seen {
		if ok {
			k++
		}
	}
	out := make([]Counts, 0, k)
	for i := range secs {
		if seen[i] {
			out = append(out, secs[i])
		}
	}
	return out
}

// Tick is one instant located in the nodes' second window, and the
// caller's stripe: a call computes it once and counts with it on each node
// it touches, which spares every node the division and processor lookup.
type Tick struct {
	Now    int64
	second position
	stripe int
}

// TickAt locates now. Node windows have fixed shapes, so the division here
// is by a constant.
func TickAt(now int64) Tick {
	return TickAtStripe(now, stripe(stripeCount))
}

// TickAtStripe locates now for a caller that knows its stripe (Stripe, or
// Tick.Stripe of an earlier tick of the same call): a call that moved to
// another processor meanwhile still counts right, since readers sum every
// stripe, and it spares the processor lookup.
func TickAtStripe(now int64, stripe int) Tick {
	const secLen = SecondIntervalMs / SecondSampleCount
	s := now / secLen
	return Tick{
		Now:    now,
		second: position{int(s % secondSlots), s * secLen},
		stripe: stripe & (stripeCount - 1),
	}
}

// Stripe is the tick's stripe.
func (t *Tick) Stripe() int { return t.stripe }

// Pass counts count admitted calls on n, and one more call in flight.
// Tick's three methods are the one way to write to a node; the runtime's
// Statistic slot is their caller.
func (t *Tick) Pass(n *Node, count int64) {
	n.thread(t.stripe).Add(1)
	t.add(n.second.Load(), Pass, count)
}

// Block counts count blocked calls on n.
func (t *Tick) Block(n *Node, count int64) {
	t.add(n.second.Load(), Block, count)
}

// Complete counts on n count completed calls that took rt milliseconds
// (failed ones also as exceptions: Java's addRtAndSuccess plus
// increaseExceptionQps), and one call fewer in flight.
func (t *Tick) Complete(n *Node, rt, count int64, failed bool) {
	t.complete(n.second.Load(), rt, count, failed)
	n.thread(t.stripe).Add(-1)
}

func (t *Tick) add(w *Window, ev Event, count int64) {
	w.add(w.slot(t.second.idx), t.second.start, t.stripe, ev, count)
}

func (t *Tick) complete(w *Window, rt, count int64, failed bool) {
	w.addCompletion(w.slot(t.second.idx), t.second.start, t.stripe, rt, count, failed)
}

// Threads is the number of calls in flight (Java's curThreadNum).
func (n *Node) Threads() int64 {
	var t int64
	for i := range stripeCount {
		t += n.thread(i).Load()
	}
	if p := n.parts.Load(); p != nil {
		for _, o := range *p {
			t += o.Threads()
		}
	}
	return t
}

func (n *Node) perSecond(now int64, ev Event) float64 {
	return float64(n.second.Load().Sum(now, ev)) * 1000 / SecondIntervalMs
}

// PassQPS is the admitted calls in the last second.
func (n *Node) PassQPS(now int64) float64 { return n.perSecond(now, Pass) }

// BlockQPS is the blocked calls in the last second.
func (n *Node) BlockQPS(now int64) float64 { return n.perSecond(now, Block) }

// SuccessQPS is the completed calls in the last second.
func (n *Node) SuccessQPS(now int64) float64 { return n.perSecond(now, Success) }

// ExceptionQPS is the failed calls in the last second.
func (n *Node) ExceptionQPS(now int64) float64 { return n.perSecond(now, Exception) }

// TotalQPS is PassQPS plus BlockQPS.
func (n *Node) TotalQPS(now int64) float64 { return n.PassQPS(now) + n.BlockQPS(now) }

// AvgRT is the mean response time in milliseconds of the calls completed in
// the last second, 0 when none completed.
func (n *Node) AvgRT(now int64) float64 {
	succ := n.second.Load().Sum(now, Success)
	if succ == 0 {
		return 0
	}
	return float64(n.second.Load().Sum(now, RT)) / float64(succ)
}

// MinRT is the smallest response time of the last second (Java's minRt).
func (n *Node) MinRT(now int64) float64 { return float64(n.second.Load().MinRT(now)) }

// MaxSuccessQPS is the best per-bucket success count of the last second
// scaled to a second (Java's maxSuccessQps, read by the system rules' BBR
// check).
func (n *Node) MaxSuccessQPS(now int64) float64 {
	return float64(n.second.Load().Max(now, Success)) * SecondSampleCount * 1000 / SecondIntervalMs
}

// previousSecond sums ev over the whole second before now's (Java reads it
// from the minute window's previous bucket).
func (n *Node) previousSecond(now int64, ev Event) float64 {
	sec := now - now%1000
	return float64(n.second.Load().SumRange(sec-1000, sec, ev))
}

// PreviousPassQPS is the admitted calls of the previous whole second (Java's
// previousPassQps, which warm-up flow control syncs its tokens from).
func (n *Node) PreviousPassQPS(now int64) float64 { return n.previousSecond(now, Pass) }

// PreviousBlockQPS is the blocked calls of the previous whole second.
func (n *Node) PreviousBlockQPS(now int64) float64 { return n.previousSecond(now, Block) }

// Metrics is a snapshot of a node's figures.
type Metrics struct {
	PassQPS      float64 `json:"passQps"`
	BlockQPS     float64 `json:"blockQps"`
	SuccessQPS   float64 `json:"successQps"`
	ExceptionQPS float64 `json:"exceptionQps"`
	AvgRT        float64 `json:"avgRt"`
	MinRT        float64 `json:"minRt"`
	Threads      int64   `json:"threads"`
	// Totals of the last minute; zero for a node without history.
	MinutePass      int64 `json:"minutePass"`
	MinuteBlock     int64 `json:"minuteBlock"`
	MinuteSuccess   int64 `json:"minuteSuccess"`
	MinuteException int64 `json:"minuteException"`
}

// Metrics returns the node's figures at time now.
func (n *Node) Metrics(now int64) Metrics {
	m := Metrics{
		PassQPS:      n.PassQPS(now),
		BlockQPS:     n.BlockQPS(now),
		SuccessQPS:   n.SuccessQPS(now),
		ExceptionQPS: n.ExceptionQPS(now),
		AvgRT:        n.AvgRT(now),
		MinRT:        n.MinRT(now),
		Threads:      n.Threads(),
	}
	for _, c := range n.History(now) {
		m.MinutePass += c.Pass
		m.MinuteBlock += c.Block
		m.MinuteSuccess += c.Success
		m.MinuteException += c.Exception
	}
	return m
}
