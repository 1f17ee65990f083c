//go:build amd64 || arm64

// The figures here are those of 64-bit machines with 64-byte cache lines.

package degrade

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// A call reads one cache line of its checker and one of each breaker: the
// fields it reads come first, and the sizes are size classes whose
// objects start on a line.
func TestCheckerAndBreakerAreOneLineToACall(t *testing.T) {
	var k checker
	assert.LessOrEqual(t, unsafe.Sizeof(k), uintptr(64))
	assert.Greater(t, unsafe.Sizeof(k), uintptr(48), "the 64-byte size class")
	var b breaker
	assert.LessOrEqual(t, unsafe.Offsetof(b.stat)+unsafe.Sizeof(b.stat), uintptr(64), "state, grade, maxRT and the window")
	for i := range breakers {
		breakers[i] = newBreaker(&Rule{Resource: "layout", Grade: ErrorCount, Count: 1, TimeWindow: 1, StatIntervalMs: 1000}, "layout")
		assert.Zero(t, uintptr(unsafe.Pointer(breakers[i]))%64)
	}
}

var breakers [8]*breaker // kept, so on the heap

// A bucket's header and each of its cells are a cache line of their own,
// and each cell carries the bucket's start: a good completion past
// minRequests reads and writes its stripe's line only.
func TestBucketCellsEachALine(t *testing.T) {
	assert.Equal(t, uintptr(64), unsafe.Sizeof(bucket{}))
	assert.Equal(t, uintptr(64), unsafe.Sizeof(cell{}))
	for range 8 {
		b := newBucket(1000)
		assert.Zero(t, uintptr(unsafe.Pointer(b))%64)
		for s := range stripes {
			c := b.cell(s)
			assert.Zero(t, uintptr(unsafe.Pointer(c))%64, "cell %d", s)
			assert.EqualValues(t, 1000, c.start)
		}
		assert.Panics(t, func() { b.cell(stripes) })
	}
}

// Each stripe learns on its own that the bucket reached minRequests; the
// completion that brings it there checks, good ones after it do not.
func TestWindowPastMinRequestsPerStripe(t *testing.T) {
	w := window{interval: 1000, minRequests: 2}
	check, _, _ := w.add(10, 0, false)
	assert.False(t, check)
	check, total, _ := w.add(10, 1, false)
	assert.True(t, check)
	assert.EqualValues(t, 2, total)
	for s := range 2 * stripes {
		check, _, _ = w.add(20, s, false)
		assert.False(t, check)
	}
	check, total, bad := w.add(30, 0, true)
	assert.True(t, check)
	assert.EqualValues(t, 3+2*stripes, total)
	assert.EqualValues(t, 1, bad)
	check, total, _ = w.add(1010, 0, false)
	assert.False(t, check, "a new interval starts below minRequests")
	assert.Zero(t, total)
}

// A resource's one breaker, enforcing and never dry-run, is its own
// checker: a call reads the breaker's first line and no checker's.
func TestAOneBreakerResourceChecksOnOneLine(t *testing.T) {
	rule := func(dry bool) *Rule {
		return &Rule{Resource: "layout", Grade: ErrorCount, Count: 1, TimeWindow: 1, StatIntervalMs: 1000, DryRun: dry}
	}
	b := newBreaker(rule(false), "layout")
	s, ok := newChecker([]*breaker{b}).(*soloChecker)
	assert.True(t, ok)
	assert.Same(t, b, (*breaker)(s))

	_, ok = newChecker([]*breaker{b, newBreaker(rule(false), "layout")}).(*checker)
	assert.True(t, ok, "two breakers")
	_, ok = newChecker([]*breaker{newBreaker(rule(true), "layout")}).(*checker)
	assert.True(t, ok, "a dry-run breaker")
	b.setRule(rule(true))
	b.setRule(rule(false))
	_, ok = newChecker([]*breaker{b}).(*checker)
	assert.True(t, ok, "a breaker that was dry-run: its exits ask what it refused")
}
