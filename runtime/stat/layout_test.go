//go:build amd64 || arm64

// The figures here are those of 64-bit machines with 64-byte cache lines.

package stat

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// line is the cache line of p.
func line(p unsafe.Pointer) uintptr { return uintptr(p) / 64 }

// A call reads, of a node made by NewNode, its second, the window's ring
// slot and the window's pointer to the ring: one cache line.
func TestANodesWindowIsOneLine(t *testing.T) {
	for _, history := range []bool{false, true} {
		n := NewNode(history)
		w := n.second.Load()
		l := line(unsafe.Pointer(&n.second))
		assert.Zero(t, uintptr(unsafe.Pointer(&n.second))%64, "second starts a line")
		for i := range w.buckets() {
			assert.Equal(t, l, line(unsafe.Pointer(&w.buckets()[i])), "slot %d", i)
		}
		assert.Equal(t, l, line(unsafe.Pointer(&w.ring)), "the ring's pointer")
		assert.Equal(t, l, line(unsafe.Pointer(&w.nslots)), "its length")
	}
}

// What a call reads of a node is its last 24 bytes (threads, inBase,
// second), so that a node placed at a line's start, or 24 bytes before
// its end, keeps them on one line.
func TestANodesHotFieldsAreItsLast(t *testing.T) {
	var n Node
	assert.Equal(t, unsafe.Sizeof(n)-24, unsafe.Offsetof(n.threads))
	assert.Less(t, unsafe.Offsetof(n.inBase), unsafe.Offsetof(n.second))
	assert.Equal(t, unsafe.Sizeof(n)-8, unsafe.Offsetof(n.second))
}

// Each stripe's count of calls in flight is a line of its own.
func TestThreadsEachALine(t *testing.T) {
	n := NewNode(false)
	for s := range stripeCount {
		assert.Zero(t, uintptr(unsafe.Pointer(n.thread(s)))%64, "stripe %d", s)
	}
}

// A flow gate's window and its ring are 128 bytes, and what TryAdd reads
// of them (the ring, and the window's fields up to reservedUntil) and the
// gate's limit are the first line.
func TestAnOccupiableWindowIsOneLineToTryAdd(t *testing.T) {
	for range 8 {
		w := NewOccupiableWindow(SecondSampleCount, SecondIntervalMs)
		l := line(unsafe.Pointer(&w.buckets()[0]))
		assert.Zero(t, uintptr(unsafe.Pointer(&w.buckets()[0]))%128)
		for _, p := range []unsafe.Pointer{
			unsafe.Pointer(&w.buckets()[len(w.buckets())-1]), unsafe.Pointer(&w.ring),
			unsafe.Pointer(&w.nslots), unsafe.Pointer(&w.sampleCount), unsafe.Pointer(&w.lenMs),
			unsafe.Add(unsafe.Pointer(&w.reservedUntil), 7), unsafe.Add(unsafe.Pointer(&w.limit), 7),
		} {
			assert.Equal(t, l, line(p))
		}
	}
}

// GateMemory is the ring and the window's hot fields, the limit last, in
// its first 64 bytes: a caller that starts a line with it reads one line
// per check.
func TestGateMemoryHotFieldsAreItsFirstLine(t *testing.T) {
	var m GateMemory
	assert.Equal(t, uintptr(64), unsafe.Offsetof(m.w)+unsafe.Offsetof(m.w.limit)+8)
	assert.Equal(t, uintptr(88), unsafe.Sizeof(m), "the rest of a 128-byte object is its owner's")
	w := m.Init(7)
	assert.EqualValues(t, 7, w.Limit())
	assert.Same(t, w, m.Window())
}
