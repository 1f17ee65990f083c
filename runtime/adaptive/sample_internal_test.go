package adaptive

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every response time up to the cap falls in the bucket whose bounds hold
// it, and the buckets tile the range without gaps, each at most 1/16 of
// its times wide.
func TestEveryResponseTimeHasTheBucketThatHoldsIt(t *testing.T) {
	for rt := int64(0); rt <= maxSampleMs; rt++ {
		b := bucketOf(rt)
		require.Less(t, b, numBuckets, "rt %d", rt)
		lo, hi := bucketBounds(b)
		require.True(t, lo <= rt && rt < hi, "rt %d in bucket %d [%d, %d)", rt, b, lo, hi)
		require.LessOrEqual(t, hi-lo, max(1, lo/16), "rt %d", rt)
	}
	for b := 1; b < numBuckets; b++ {
		_, prevHi := bucketBounds(b - 1)
		lo, _ := bucketBounds(b)
		require.Equal(t, prevHi, lo, "bucket %d", b)
	}
}

func TestTheWeightedMedian(t *testing.T) {
	hist := func(counts map[int64]int64) *histogram {
		var h histogram
		for rt, n := range counts {
			h[bucketOf(rt)] += n
		}
		return &h
	}
	for _, tc := range []struct {
		name      string
		counts    map[int64]int64
		minRTT    float64
		rtt       float64
		effective float64
	}{
		{"calls that all took the same time", map[int64]int64{20: 100}, 20, 20, 100},
		{"calls that took no time weigh nothing", map[int64]int64{20: 100, 0: 10000}, 20, 20, 100},
		{"nothing measurable", map[int64]int64{0: 10}, 20, 0, 0},
		// 20 calls of a minute weigh as 20 of 80 ms: (100×20 + 20×80)² / (100×20² + 20×80²)
		{"a call's weight is bounded by 4 × minRTT", map[int64]int64{20: 100, 60000: 20}, 20, 20, 77.14},
		{"unbounded before minRTT is known", map[int64]int64{20: 100, 60000: 20}, 0, 60000, 0},
		{"the median moves once the slow calls weigh more", map[int64]int64{20: 100, 1000: 30}, 20, 1000, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := hist(tc.counts).weightedMedian(tc.minRTT)
			assert.InDelta(t, tc.rtt, s.rtt, 0.03*tc.rtt+0.5, "read to within 3%")
			if tc.effective > 0 {
				assert.InDelta(t, tc.effective, s.effective, 0.01)
			}
		})
	}
}
