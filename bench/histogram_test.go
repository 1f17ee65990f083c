package bench

import (
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Entry + Exit of a resource without rules whose response-time histogram
// is on (runtime.EnableRTHistogram), to be read against EntryExitNoRules:
// the histogram's cost, one allocation still (the entry, a size class up).
func BenchmarkEntryExitRTHistogram(b *testing.B) {
	runtime.EnableRTHistogram("bench-rt-histogram")
	benchEntryExit(b, "bench-rt-histogram")
}

func BenchmarkEntryExitRTHistogramParallel(b *testing.B) {
	runtime.EnableRTHistogram("bench-rt-histogram-parallel")
	benchEntryExitParallel(b, "bench-rt-histogram-parallel")
}
