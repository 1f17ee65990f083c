package metrics

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

const t0 = int64(1_764_000_000_000) // a whole minute

func bucket(start, pass int64) stat.Counts { return stat.Counts{Start: start, Pass: pass} }

func TestTotalsFoldEachBucketOnce(t *testing.T) {
	var tt totals
	// Second 0 in progress.
	assert.EqualValues(t, 2, tt.update([]stat.Counts{bucket(t0, 2)}, t0+500).pass)
	// It grew; a pending bucket is read again.
	assert.EqualValues(t, 5, tt.update([]stat.Counts{bucket(t0, 5)}, t0+900).pass)
	// Seconds later it settles and is folded; it is still in the ring but
	// never counted twice.
	ring := []stat.Counts{bucket(t0, 5), bucket(t0+1000, 1)}
	assert.EqualValues(t, 6, tt.update(ring, t0+1000+settleMs).pass)
	assert.EqualValues(t, t0, tt.through)
	assert.EqualValues(t, 6, tt.update(ring, t0+2000+settleMs).pass)
	assert.EqualValues(t, t0+1000, tt.through)
	assert.Empty(t, tt.pending)
	assert.EqualValues(t, 6, tt.update(ring, t0+30_000).pass)
}

func TestTotalsKeepABucketTheRingDropped(t *testing.T) {
	var tt totals
	assert.EqualValues(t, 4, tt.update([]stat.Counts{bucket(t0, 4)}, t0+100).pass)
	// The next read comes after the ring went round: t0's bucket is gone,
	// and it is folded with the value last read.
	later := t0 + 61_000
	assert.EqualValues(t, 7, tt.update([]stat.Counts{bucket(later, 3)}, later+10).pass)
	assert.EqualValues(t, t0, tt.through)
}

func TestTotalsFirstReadTakesTheWholeMinute(t *testing.T) {
	var tt totals
	var ring []stat.Counts
	for i := range int64(60) {
		ring = append(ring, bucket(t0+i*1000, 1))
	}
	now := t0 + 59_500
	assert.EqualValues(t, 60, tt.update(ring, now).pass)
	assert.Len(t, tt.pending, 6, "the last 6 seconds have not settled")
	assert.EqualValues(t, 60, tt.update(ring, now).pass, "reading again changes nothing")
}

func TestMergePendingTakesTheLargerReading(t *testing.T) {
	got := mergePending(
		[]stat.Counts{bucket(t0, 3), bucket(t0+1000, 9)},
		[]stat.Counts{bucket(t0+1000, 4), bucket(t0+2000, 1)})
	assert.Equal(t, []stat.Counts{bucket(t0, 3), bucket(t0+1000, 9), bucket(t0+2000, 1)}, got)
}
