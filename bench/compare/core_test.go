package compare

import (
	"fmt"
	goruntime "runtime"
	"testing"

	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// floorSink keeps BenchmarkFloor's allocation on the heap.
var floorSink *[16]uintptr

// BenchmarkFloor allocates one object of the entry's 128-byte size class
// (with pointers): the floor of an Entry+Exit that allocates its entry.
func BenchmarkFloor(b *testing.B) {
	b.Run("path=alloc128/impl=floor", func(b *testing.B) {
		b.ReportAllocs()
		defer webtest.CPUTimer(b)()
		for b.Loop() {
			floorSink = &[16]uintptr{}
		}
	})
}

const (
	coreAdmitted = "compare-core-admitted"
	coreRefused  = "compare-core-refused"
)

func BenchmarkCore(b *testing.B) {
	for _, im := range protectors {
		b.Run("path=admitted/impl="+im.name, func(b *testing.B) {
			im.admitting(b, coreAdmitted)
			benchCalls(b, im.enter(coreAdmitted), true, false)
		})
		b.Run("path=admitted-flow/impl="+im.name, func(b *testing.B) {
			im.admittingFlow(b, coreAdmitted)
			benchCalls(b, im.enter(coreAdmitted), true, false)
		})
		b.Run("path=refused/impl="+im.name, func(b *testing.B) {
			im.refusing(b, coreRefused)
			benchCalls(b, im.enter(coreRefused), false, false)
		})
		b.Run("path=admitted-parallel/impl="+im.name, func(b *testing.B) {
			im.admitting(b, coreAdmitted)
			benchCalls(b, im.enter(coreAdmitted), true, true)
		})
		b.Run("path=refused-parallel/impl="+im.name, func(b *testing.B) {
			im.refusing(b, coreRefused)
			benchCalls(b, im.enter(coreRefused), false, true)
		})
	}
}

// benchCalls runs call, which must admit or refuse as want says.
func benchCalls(b *testing.B, call func() bool, want, parallel bool) {
	if call() != want {
		b.Fatalf("admitted %v, want %v", !want, want)
	}
	b.ReportAllocs()
	defer webtest.CPUTimer(b)()
	if !parallel {
		for b.Loop() {
			call()
		}
		return
	}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			call()
		}
	})
}

// BenchmarkResources is the admitted call round robin over n resources,
// each with its flow rule and breaker: a call must cost the same however
// many resources there are. With 6,000 it also reports the heap each
// resource holds once called (B/resource).
func BenchmarkResources(b *testing.B) {
	for _, im := range protectors {
		for _, n := range []int{1, 6000} {
			b.Run(fmt.Sprintf("path=resources-%d/impl=%s", n, im.name), func(b *testing.B) {
				names := make([]string, n)
				for i := range names {
					names[i] = fmt.Sprintf("compare-resources-%s-%d-%d", im.name, n, i)
				}
				first := !made[b.Name()]
				made[b.Name()] = true
				before := liveHeap()
				im.admitting(b, names...)
				calls := make([]func() bool, n)
				for i, name := range names {
					calls[i] = im.enter(name)
					if !calls[i]() { // creates what the first call does
						b.Fatalf("%s refused", name)
					}
				}
				held := liveHeap() - before
				b.ReportAllocs()
				defer webtest.CPUTimer(b)()
				i := 0
				for b.Loop() {
					calls[i]()
					if i++; i == n {
						i = 0
					}
				}
				// What each resource holds once called, its rules'
				// state included: measured where the resources were
				// made, in the first run.
				if first && n > 1 {
					b.ReportMetric(float64(held)/float64(n), "B/resource")
				}
			})
		}
	}
}

// made records the Resources cases that made their resources.
var made = map[string]bool{}

// liveHeap is the heap's live bytes after a collection.
func liveHeap() int64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
