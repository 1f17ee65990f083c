package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// bucketOf is the index of the bucket a response time of us counts in.
func bucketOf(t *testing.T, us int64) int {
	t.Helper()
	for i, b := range runtime.RTHistogramBounds() {
		if us <= b {
			return i
		}
	}
	return len(runtime.RTHistogramBounds())
}

func TestTheHistogramCountsMicrosecondsThatTheMillisecondStatisticsRoundAway(t *testing.T) {
	clk := clocktest.Install(t)
	r := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	_, on := r.RTHistogram()
	require.False(t, on, "off until asked")
	r.EnableRTHistogram()

	times := []time.Duration{20 * time.Microsecond, 25 * time.Microsecond, 420 * time.Microsecond, 420 * time.Microsecond, 3 * time.Millisecond, 20 * time.Second}
	for _, d := range times {
		e, b := r.Entry(context.Background())
		require.Nil(t, b)
		clk.Advance(d)
		e.Exit()
	}
	h, on := r.RTHistogram()
	require.True(t, on)
	want := make([]int64, len(runtime.RTHistogramBounds())+1)
	want[bucketOf(t, 20)]++
	want[bucketOf(t, 25)]++ // a bound counts in its own bucket
	want[bucketOf(t, 420)] += 2
	want[bucketOf(t, 3000)]++
	want[len(want)-1]++ // slower than every bound
	assert.Equal(t, want, h.Counts)
	assert.Equal(t, int64(0), h.Counts[1], "25 µs is the first bucket's")
	assert.EqualValues(t, 6, h.Count)
	assert.EqualValues(t, 20+25+420+420+3000+20_000_000, h.SumMicros)
}

func TestTheHistogramCountsCallsThroughEveryWayOfEntering(t *testing.T) {
	clk := clocktest.Install(t)
	r := runtime.EnableRTHistogram(t.Name())
	require.Same(t, r, runtime.LookupResource(t.Name()), "enabling declares")
	ctx := context.Background()
	enters := []func() *runtime.SentinelEntry{
		func() *runtime.SentinelEntry { e, _ := r.Entry(ctx); return e },
		func() *runtime.SentinelEntry { e, _ := runtime.Entry(ctx, t.Name()); return e },
		func() *runtime.SentinelEntry { e, _ := r.EntryInContext(ctx, "ctx", "origin"); return e },
		func() *runtime.SentinelEntry { e, _, _ := runtime.EntryWith[[3]int](r, ctx); return e },
		func() *runtime.SentinelEntry {
			e, _, _ := runtime.EntryInContextWith[[3]int](r, ctx, "ctx", "origin")
			return e
		},
	}
	for _, enter := range enters {
		e := enter()
		require.NotNil(t, e)
		clk.Advance(300 * time.Microsecond)
		e.Exit()
	}
	h, _ := r.RTHistogram()
	assert.EqualValues(t, 5, h.Count)
	assert.EqualValues(t, 5, h.Counts[bucketOf(t, 300)])
	assert.EqualValues(t, 1500, h.SumMicros)
}

func TestABlockedCallIsNotInTheHistogramAndACallBeforeItWasOnIsNot(t *testing.T) {
	clk := clocktest.Install(t)
	name := t.Name()
	blocker := newTestSlot(name)
	blocker.block = func(c *runtime.Call) bool { return c.BatchCount() == 2 }
	register(t, name, 10, blocker)
	r := runtime.Declare(runtime.ResourceSpec{Name: name})
	before, _ := r.Entry(context.Background())
	r.EnableRTHistogram()
	r.EnableRTHistogram() // once on, again changes nothing
	_, b := r.Entry(context.Background(), runtime.WithBatchCount(2))
	require.NotNil(t, b)
	clk.Advance(time.Millisecond)
	before.Exit()
	h, _ := r.RTHistogram()
	assert.Zero(t, h.Count)
}

func TestAHistogramCostsItsCallsOneAllocationAndOthersNothing(t *testing.T) {
	clocktest.Install(t)
	on := runtime.EnableRTHistogram(t.Name() + "on")
	off := runtime.Declare(runtime.ResourceSpec{Name: t.Name() + "off"})
	ctx := context.Background()
	for _, r := range []*runtime.Resource{on, off} {
		allocs := testing.AllocsPerRun(100, func() {
			e, _ := r.Entry(ctx)
			e.Exit()
		})
		assert.Equal(t, 1.0, allocs, r.Name())
	}
}
