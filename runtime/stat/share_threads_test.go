package stat

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A split node with no call in flight must read 0 threads however busy the
// resource's other contexts are: Java's DefaultNode counts its own calls
// only. Deriving its threads as base - others reads two counters that
// another context's call writes one after the other, so a read that falls
// between them sees that call as the split node's (+1) or as minus one.
func TestSplitNodeThreadsStayZeroWhileAnotherContextIsBusy(t *testing.T) {
	base := NewNode(false)
	n := NewSharingNode(base)
	other := NewNode(false)
	n.CountApart(other)

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 200_000 && !stop.Load(); i++ {
			tk := TickAt(t0 + 100)
			tk.PassPair(other, base, 1)
			tk.CompletePair(other, base, 1, 1, false)
		}
		stop.Store(true)
	}()
	var low, high int64
	for !stop.Load() {
		th := n.Threads()
		low, high = min(low, th), max(high, th)
		if low < 0 && high > 0 {
			stop.Store(true) // both seen: no need to keep the CPU busy
		}
	}
	wg.Wait()
	assert.GreaterOrEqual(t, low, int64(0), "a node's calls in flight never read negative")
	assert.Equal(t, int64(0), high, "another context's calls are not this node's")
}

// The base's calls in flight are its parts' (the sharing node and the
// nodes counting apart), and a node paired without CountApart still
// counts on the base too.
func TestBaseThreadsAreItsPartsAcrossASplit(t *testing.T) {
	base := NewNode(true)
	n := NewSharingNode(base)
	tk := TickAt(t0 + 100)
	tk.PassPair(n, base, 1) // in flight across the split
	other := NewNode(false)
	n.CountApart(other)
	tk.PassPair(other, base, 1)
	loose := NewNode(false)
	tk.PassPair(loose, base, 1)
	assert.EqualValues(t, 1, n.Threads())
	assert.EqualValues(t, 1, other.Threads())
	assert.EqualValues(t, 1, loose.Threads())
	assert.EqualValues(t, 3, base.Threads())

	tk.CompletePair(n, base, 1, 1, false)
	tk.CompletePair(other, base, 1, 1, false)
	tk.CompletePair(loose, base, 1, 1, false)
	for _, node := range []*Node{n, other, loose, base} {
		assert.EqualValues(t, 0, node.Threads())
	}
}
