package bench

import (
	"testing"

	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// entrySized has the size and pointer layout class of runtime.SentinelEntry
// (128 bytes, with pointers): allocating one is the floor of an
// Entry+Exit, which allocates once, the entry itself.
type entrySized struct {
	_ [8]*int
	_ [8]int64
}

var sink *entrySized

// BenchmarkAllocEntrySized measures that floor in the same run as the
// other cases. On these machines an allocation costs in proportion to its
// bytes (the VM returns freed pages to its host, so the Go runtime's
// scavenger and page faults weigh on every GC cycle).
func BenchmarkAllocEntrySized(b *testing.B) {
	b.ReportAllocs()
	defer webtest.CPUTimer(b)()
	for b.Loop() {
		sink = &entrySized{}
	}
}

func BenchmarkAllocEntrySizedParallel(b *testing.B) {
	b.ReportAllocs()
	defer webtest.CPUTimer(b)()
	b.RunParallel(func(pb *testing.PB) {
		var local *entrySized
		for pb.Next() {
			local = &entrySized{}
		}
		sink = local
	})
}
