package stat

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSharingNodeCountsOnceInTheSharedWindow(t *testing.T) {
	base := NewNode(true)
	n := NewSharingNode(base)
	require.True(t, n.Shares())

	tk := TickAt(t0 + 100)
	tk.PassPair(n, base, 3)
	tk.BlockPair(n, base, 2)
	tk.CompletePair(n, base, 40, 1, true)

	for _, node := range []*Node{n, base} {
		assert.EqualValues(t, 3, node.PassQPS(t0+100), "the window counts the pass once")
		assert.EqualValues(t, 2, node.BlockQPS(t0+100))
		assert.EqualValues(t, 1, node.SuccessQPS(t0+100))
		assert.EqualValues(t, 1, node.ExceptionQPS(t0+100))
		assert.EqualValues(t, 40, node.AvgRT(t0+100))
		assert.EqualValues(t, 0, node.Threads())
	}
	tk.PassPair(n, base, 1)
	assert.EqualValues(t, 1, n.Threads(), "the thread is counted once, for both")
	assert.EqualValues(t, 1, base.Threads())
	assert.Empty(t, n.History(t0+100), "a sharing node keeps no history")
	assert.NotEmpty(t, base.History(t0+100))
}

func TestCountApartKeepsWhatTheNodeCountedAndCountsApartAfter(t *testing.T) {
	base := NewNode(true)
	n := NewSharingNode(base)
	prev, first, second := TickAt(t0+100), TickAt(t0+1100), TickAt(t0+1600)
	prev.PassPair(n, base, 4)  // the previous second
	first.PassPair(n, base, 5) // this second's first bucket
	second.CompletePair(n, base, 7, 2, false)

	other := NewNode(false)
	n.CountApart(other)
	require.False(t, n.Shares())
	n.CountApart(NewNode(false)) // a third context: the window is split already

	now := t0 + 1700
	assert.EqualValues(t, 5, n.PassQPS(now), "the split node keeps the second it counted")
	assert.EqualValues(t, 4, n.PreviousPassQPS(now), "and the previous one")
	assert.EqualValues(t, 2, n.SuccessQPS(now))
	assert.EqualValues(t, 7, n.MinRT(now))

	// Another context's call counts on the base only; this node's on both.
	tk := TickAt(now)
	tk.PassPair(other, base, 10)
	tk.PassPair(n, base, 1)
	assert.EqualValues(t, 6, n.PassQPS(now))
	assert.EqualValues(t, 10, other.PassQPS(now))
	assert.EqualValues(t, 16, base.PassQPS(now))
	assert.EqualValues(t, 2, n.Threads(), "threads stay exact across the split")
	assert.EqualValues(t, 1, other.Threads())
	assert.EqualValues(t, 3, base.Threads())
	tk.CompletePair(other, base, 1, 10, false)
	tk.CompletePair(n, base, 1, 1, false)
	tk.CompletePair(n, base, 1, 1, false) // a call in flight since before the split
	assert.EqualValues(t, 0, other.Threads())
	assert.EqualValues(t, 0, n.Threads())
	assert.EqualValues(t, 0, base.Threads())
}

// The attacker's case for a split is a busy resource: calls count on the
// pair while another goroutine splits. No pass may be lost from the split
// node, and none may be counted twice on the base.
func TestCountApartUnderConcurrentCallsLosesNothing(t *testing.T) {
	for range 50 {
		base := NewNode(false)
		n := NewSharingNode(base)
		const workers, calls = 4, 500
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for range calls {
					tk := TickAt(t0 + 100)
					tk.PassPair(n, base, 1)
					tk.CompletePair(n, base, 1, 1, false)
				}
			}()
		}
		close(start)
		n.CountApart(NewNode(false))
		wg.Wait()
		assert.EqualValues(t, workers*calls, base.PassQPS(t0+100), "the base counts each pass once")
		assert.GreaterOrEqual(t, n.PassQPS(t0+100), float64(workers*calls), "the split node loses no pass")
		assert.GreaterOrEqual(t, n.SuccessQPS(t0+100), float64(workers*calls))
		assert.EqualValues(t, 0, n.Threads())
		assert.EqualValues(t, 0, base.Threads())
	}
}
