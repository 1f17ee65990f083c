package degrade_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
)

// A closed breaker that never opens: a slow-ratio rule whose maximum RT is
// an hour.
func benchRule(res string) degrade.Rule {
	return degrade.Rule{Resource: res, Grade: degrade.SlowRequestRatio, Count: 3_600_000, SlowRatioThreshold: 1, TimeWindow: 10}
}

func BenchmarkEntryExitClosedBreaker(b *testing.B) {
	if err := degrade.LoadRules([]degrade.Rule{benchRule("bench-breaker")}); err != nil {
		b.Fatal(err)
	}
	defer degrade.LoadRules(nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e, blk := runtime.Entry(ctx, "bench-breaker")
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}

func BenchmarkEntryExitClosedBreakerParallel(b *testing.B) {
	if err := degrade.LoadRules([]degrade.Rule{benchRule("bench-breaker-parallel")}); err != nil {
		b.Fatal(err)
	}
	defer degrade.LoadRules(nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			e, blk := runtime.Entry(ctx, "bench-breaker-parallel")
			if blk != nil {
				b.Error(blk)
				return
			}
			e.Exit()
		}
	})
}

// BenchmarkEntryExitNoBreaker is the same call without a rule, for
// comparison in one run.
func BenchmarkEntryExitNoBreaker(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e, blk := runtime.Entry(ctx, "bench-no-breaker")
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}

func BenchmarkEntryExitNoBreakerParallel(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			e, blk := runtime.Entry(ctx, "bench-no-breaker-parallel")
			if blk != nil {
				b.Error(blk)
				return
			}
			e.Exit()
		}
	})
}
