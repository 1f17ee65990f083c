package authority_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/authority"
)

func benchAuthority(b *testing.B, res, limitApp string, parallel bool) {
	if err := authority.LoadRules([]authority.Rule{{Resource: res, LimitApp: limitApp}}); err != nil {
		b.Fatal(err)
	}
	defer authority.LoadRules(nil)
	ctx := runtime.EnterContext(context.Background(), "bench", "appA")
	b.ReportAllocs()
	if !parallel {
		for b.Loop() {
			e, blk := runtime.Entry(ctx, res)
			if blk != nil {
				b.Fatal(blk)
			}
			e.Exit()
		}
		return
	}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			e, blk := runtime.Entry(ctx, res)
			if blk != nil {
				b.Error(blk)
				return
			}
			e.Exit()
		}
	})
}

func BenchmarkEntryExitWhiteList(b *testing.B) {
	benchAuthority(b, "bench-white", "appB,appA,appC", false)
}

func BenchmarkEntryExitWhiteListParallel(b *testing.B) {
	benchAuthority(b, "bench-white-parallel", "appB,appA,appC", true)
}

func BenchmarkEntryExitLongWhiteList(b *testing.B) {
	benchAuthority(b, "bench-white-long", "a1,a2,a3,a4,a5,a6,a7,a8,a9,appA", false)
}
