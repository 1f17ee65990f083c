package stat

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Java's OccupiableBucketLeapArray: passes borrowed for a bucket to come
// wait in its FutureBucketLeapArray (currentWaiting counts the buckets that
// start after now) and are the bucket's passes once its time comes.
func TestReservedPassesWaitThenCount(t *testing.T) {
	w := NewOccupiableWindow(2, 1000)
	w.Add(t0+100, Pass, 4)
	w.Reserve(t0+1000, Pass, 3)
	assert.EqualValues(t, 4, w.Sum(t0+600, Pass), "a future bucket is not in the window")
	assert.EqualValues(t, 3, w.Waiting(t0+600, Pass))
	assert.EqualValues(t, 4, w.BucketSum(t0+100, Pass))
	assert.EqualValues(t, 0, w.BucketSum(t0+500, Pass))
	assert.EqualValues(t, 0, w.Waiting(t0+1000, Pass), "waiting ends when its bucket begins")
	assert.EqualValues(t, 3, w.Sum(t0+1000, Pass))
	assert.EqualValues(t, 4, w.BucketSum(t0+100, Pass), "the ring keeps the bucket before")
}

// With a reservation ahead, TryAdd keeps every window the current bucket
// falls in within the limit: [0, 1000) and [500, 1500).
func TestTryAddRespectsReservations(t *testing.T) {
	w := NewOccupiableWindow(2, 1000)
	w.Add(t0+100, Pass, 2)
	assert.True(t, w.TryAdd(t0+600, Pass, 5, 10))
	w.Reserve(t0+1000, Pass, 4)
	assert.True(t, w.Fits(t0+1000, Pass, 10))
	assert.True(t, w.TryAdd(t0+600, Pass, 1, 10), "[500, 1500): 6 + 4")
	assert.False(t, w.TryAdd(t0+600, Pass, 1, 10), "[0, 1000) has room (9), [500, 1500) has not")
	assert.EqualValues(t, 8, w.Sum(t0+600, Pass), "the refused add was taken back")
	assert.False(t, w.Fits(t0+1000, Pass, 9))
}

func TestReserveAndTryAddRacingNeverOvershoot(t *testing.T) {
	w := NewOccupiableWindow(2, 1000)
	var wg sync.WaitGroup
	var reserved atomic.Int64
	for i := range 16 {
		wg.Go(func() {
			for range 200 {
				if i%2 == 0 {
					w.TryAdd(t0+600, Pass, 1, 50)
					continue
				}
				w.Reserve(t0+1000, Pass, 1)
				if w.Fits(t0+1000, Pass, 50) {
					reserved.Add(1)
				} else {
					w.AddAt(t0+1000, Pass, -1)
				}
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, w.Sum(t0+600, Pass), int64(50))
	assert.LessOrEqual(t, w.Sum(t0+1000, Pass), int64(50))
	assert.Equal(t, reserved.Load(), w.BucketSum(t0+1000, Pass))
}
