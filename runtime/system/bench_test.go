package system_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/system"
)

// BenchmarkEntryExitInbound is an inbound Entry+Exit under admitting qps,
// thread and rt thresholds (the checks that read the inbound node).
func BenchmarkEntryExitInbound(b *testing.B) {
	r := system.NewRule()
	r.QPS, r.MaxThread, r.AvgRT = 1e12, 1e9, 1e9
	if err := system.LoadRules([]system.Rule{r}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = system.LoadRules(nil) })
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e, blk := runtime.Entry(ctx, "bench-system", inbound)
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}

func BenchmarkEntryExitInboundParallel(b *testing.B) {
	r := system.NewRule()
	r.QPS, r.MaxThread, r.AvgRT = 1e12, 1e9, 1e9
	if err := system.LoadRules([]system.Rule{r}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = system.LoadRules(nil) })
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			e, blk := runtime.Entry(ctx, "bench-system-parallel", inbound)
			if blk != nil {
				b.Error(blk)
				return
			}
			e.Exit()
		}
	})
}

// BenchmarkEntryExitInboundNoRules is the same call without system rules.
func BenchmarkEntryExitInboundNoRules(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e, blk := runtime.Entry(ctx, "bench-system-none", inbound)
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}
