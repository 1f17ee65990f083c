package runtime_test

import (
	"context"
	"strconv"
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

// BenchmarkEntryExitNewOrigin is each call from an origin never seen
// before: on a fresh resource ("first") and on one that has already seen
// 100,000 distinct origins ("after100k", its tables long full). The two
// must cost the same: a new value costs O(1) whatever came before.
func BenchmarkEntryExitNewOrigin(b *testing.B) {
	origins := make([]context.Context, 1<<16)
	for i := range origins {
		origins[i] = runtime.EnterContext(context.Background(), "bench-web", "origin-"+strconv.Itoa(i))
	}
	run := func(b *testing.B, res *runtime.Resource) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			e, blk := res.Entry(origins[i&(len(origins)-1)])
			if blk != nil {
				b.Fatal(blk)
			}
			e.Exit()
			i++
		}
	}
	b.Run("first", func(b *testing.B) {
		run(b, runtime.Declare(runtime.ResourceSpec{Name: "bench-origin-first-" + strconv.Itoa(b.N)}))
	})
	b.Run("after100k", func(b *testing.B) {
		res := runtime.Declare(runtime.ResourceSpec{Name: "bench-origin-100k"})
		for i := range 100_000 {
			e, _ := res.Entry(runtime.EnterContext(context.Background(), "bench-web", "seen-"+strconv.Itoa(i)))
			e.Exit()
		}
		run(b, res)
	})
}
