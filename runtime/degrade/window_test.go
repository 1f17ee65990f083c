package degrade

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWindowChecksOnlyWhereTheMeasureCanCross(t *testing.T) {
	w := &window{interval: 1000, minRequests: 3}
	check, _, _ := w.add(10, 0, true)
	assert.False(t, check, "1 call < minRequests")
	check, _, _ = w.add(20, 0, false)
	assert.False(t, check, "2 calls < minRequests")
	check, total, bad := w.add(30, 0, false)
	assert.True(t, check, "the completion that reaches minRequests checks")
	assert.Equal(t, [2]int64{3, 1}, [2]int64{total, bad})
	check, _, _ = w.add(40, 0, false)
	assert.False(t, check, "past minRequests a good call cannot raise the measure")
	check, total, bad = w.add(50, 0, true)
	assert.True(t, check)
	assert.Equal(t, [2]int64{5, 2}, [2]int64{total, bad})
}

func TestWindowTumblesAndKeepsTheNewestBucket(t *testing.T) {
	w := &window{interval: 1000, minRequests: 1}
	w.add(999, 0, true)
	_, total, _ := w.add(1000, 0, true)
	assert.Equal(t, int64(1), total, "1000 starts a new bucket")
	_, total, bad := w.add(500, 0, true)
	assert.Equal(t, [2]int64{2, 2}, [2]int64{total, bad}, "a clock that went back counts in the newest bucket")
	w.reset(1500)
	_, total, _ = w.add(1600, 0, true)
	assert.Equal(t, int64(1), total, "reset empties the interval")
	_, total, _ = w.add(-1, 0, true)
	assert.Equal(t, int64(2), total)
	assert.Equal(t, int64(-1000), (&window{interval: 1000, minRequests: 1}).start(-1), "negative times align down")
}

// Past minRequests each processor counts on its own cell (count.go):
// completions from every processor at once are all counted.
func TestWindowCountsEveryCompletionFromEveryProcessor(t *testing.T) {
	w := &window{interval: 1 << 40, minRequests: 5}
	const goroutines, each = 8, 2000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				w.add(10, g, i%100 == 0)
			}
		})
	}
	wg.Wait()
	check, total, bad := w.add(10, 0, true)
	assert.True(t, check)
	assert.Equal(t, int64(goroutines*each+1), total)
	assert.Equal(t, int64(goroutines*each/100+1), bad)
}
