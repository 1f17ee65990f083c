package flow

import (
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// The flow slot's own share of an admitted call: one gate check.
func BenchmarkGateTryPass(b *testing.B) {
	g := newGate(GradeQPS, nil, 0, 0)
	now := int64(1_764_000_000_000)
	b.ReportAllocs()
	for b.Loop() {
		if !g.tryPass(now, 1, 1<<62) {
			b.Fatal("refused")
		}
	}
}

func BenchmarkGateTryPassParallel(b *testing.B) {
	g := newGate(GradeQPS, nil, 0, 0)
	now := int64(1_764_000_000_000)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if !g.tryPass(now, 1, 1<<62) {
				b.Error("refused")
				return
			}
		}
	})
}

func BenchmarkGateThreads(b *testing.B) {
	g := newGate(GradeThread, nil, 0, 0)
	b.ReportAllocs()
	for b.Loop() {
		if !g.tryThreads(0, 1, 1<<62) {
			b.Fatal("refused")
		}
		g.releaseThreads()
	}
}

func BenchmarkWarmUpPass(b *testing.B) {
	w := newWarmUp(1e12, 10, 3)
	n := stat.NewNode(false)
	now := int64(1_764_000_000_000)
	b.ReportAllocs()
	for b.Loop() {
		if !w.pass(n, now, 1) {
			b.Fatal("refused")
		}
	}
}
