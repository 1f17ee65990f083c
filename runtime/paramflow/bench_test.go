package paramflow_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

// benchRule admits every call: the benchmark measures the check, not
// refusals.
func benchRule(b *testing.B, res string) {
	b.Helper()
	if err := paramflow.LoadRules([]paramflow.Rule{paramflow.NewRule(res, 0, 1e12)}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = paramflow.LoadRules(nil) })
}

// BenchmarkEntryExitHotParam is Entry+Exit with one hot-parameter rule on
// an int64 argument.
func BenchmarkEntryExitHotParam(b *testing.B) {
	benchRule(b, "bench-pf")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e, blk := runtime.Entry(ctx, "bench-pf", runtime.WithArgs(int64(42)))
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}

func BenchmarkEntryExitHotParamParallel(b *testing.B) {
	benchRule(b, "bench-pf-parallel")
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			e, blk := runtime.Entry(ctx, "bench-pf-parallel", runtime.WithArgs(int64(42)))
			if blk != nil {
				b.Error(blk)
				return
			}
			e.Exit()
		}
	})
}

// BenchmarkEntryExitHotParamString limits a string argument.
func BenchmarkEntryExitHotParamString(b *testing.B) {
	benchRule(b, "bench-pf-string")
	ctx := context.Background()
	arg := []any{"user-12345"}
	b.ReportAllocs()
	for b.Loop() {
		e, blk := runtime.Entry(ctx, "bench-pf-string", runtime.WithArgs(arg...))
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}

// BenchmarkEntryExitNoRule is the same call on a resource without a rule,
// for comparison in the same run.
func BenchmarkEntryExitNoRule(b *testing.B) {
	benchRule(b, "bench-pf-elsewhere")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e, blk := runtime.Entry(ctx, "bench-pf-none", runtime.WithArgs(int64(42)))
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}
