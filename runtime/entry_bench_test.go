package runtime_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
)

func BenchmarkEntryExitNoRules(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e, blk := runtime.Entry(ctx, "bench-norules")
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}

func BenchmarkEntryExitNoRulesParallel(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			e, blk := runtime.Entry(ctx, "bench-norules-parallel")
			if blk != nil {
				b.Fatal(blk)
			}
			e.Exit()
		}
	})
}

func BenchmarkResourceEntryExit(b *testing.B) {
	ctx := context.Background()
	r := runtime.Declare(runtime.ResourceSpec{Name: "bench-declared"})
	b.ReportAllocs()
	for b.Loop() {
		e, blk := r.Entry(ctx)
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}
