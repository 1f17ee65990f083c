package flow_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// admitAll loads one Direct Reject QPS rule on resource whose count no
// benchmark reaches.
func admitAll(b *testing.B, resource string) {
	b.Helper()
	rules := append(flow.Rules(), flow.Rule{Resource: resource, Grade: flow.GradeQPS, Count: 1e15})
	if err := flow.LoadRules(rules); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = flow.LoadRules(nil) })
}

func BenchmarkEntryExitOneQPSRule(b *testing.B) {
	admitAll(b, "flow-bench-serial")
	r := runtime.Declare(runtime.ResourceSpec{Name: "flow-bench-serial"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e, blk := r.Entry(ctx)
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}

func BenchmarkEntryExitOneQPSRuleByName(b *testing.B) {
	admitAll(b, "flow-bench-byname")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e, blk := runtime.Entry(ctx, "flow-bench-byname")
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}

func BenchmarkEntryExitOneQPSRuleParallel(b *testing.B) {
	admitAll(b, "flow-bench-parallel")
	r := runtime.Declare(runtime.ResourceSpec{Name: "flow-bench-parallel"})
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			e, blk := r.Entry(ctx)
			if blk != nil {
				b.Error(blk)
				return
			}
			e.Exit()
		}
	})
}

func BenchmarkEntryExitOneThreadRuleParallel(b *testing.B) {
	rules := []flow.Rule{{Resource: "flow-bench-threads", Grade: flow.GradeThread, Count: 1e6}}
	if err := flow.LoadRules(rules); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = flow.LoadRules(nil) })
	r := runtime.Declare(runtime.ResourceSpec{Name: "flow-bench-threads"})
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			e, blk := r.Entry(ctx)
			if blk != nil {
				b.Error(blk)
				return
			}
			e.Exit()
		}
	})
}

// BenchmarkEntryExitNoFlowRule is the baseline of BenchmarkEntryExitOneQPSRule:
// the same call on a resource the flow slot does not bind.
func BenchmarkEntryExitNoFlowRule(b *testing.B) {
	r := runtime.Declare(runtime.ResourceSpec{Name: "flow-bench-none"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e, blk := r.Entry(ctx)
		if blk != nil {
			b.Fatal(blk)
		}
		e.Exit()
	}
}
