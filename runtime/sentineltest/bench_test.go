package sentineltest_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/sentineltest"
)

// A resource that is not blocked pays nothing for another's block: the
// forcing slot does not bind to it.
func BenchmarkEntryExitBesideABlockedResource(b *testing.B) {
	for _, blocked := range []bool{false, true} {
		name := "no block"
		if blocked {
			name = "another resource blocked"
		}
		b.Run(name, func(b *testing.B) {
			sentineltest.Reset(b)
			if blocked {
				sentineltest.Block(b, "bench-blocked", runtime.BlockFlow)
			}
			r := runtime.Declare(runtime.ResourceSpec{Name: "bench-free"})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				e, blk := r.Entry(ctx)
				if blk != nil {
					b.Fatal(blk)
				}
				e.Exit()
			}
		})
	}
}

func BenchmarkForcedBlock(b *testing.B) {
	sentineltest.Reset(b)
	sentineltest.Block(b, "bench-forced", runtime.BlockFlow)
	r := runtime.Declare(runtime.ResourceSpec{Name: "bench-forced"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, blk := r.Entry(ctx); blk == nil {
			b.Fatal("admitted")
		}
	}
}
