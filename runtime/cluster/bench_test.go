package cluster_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The same admit-all QPS rule checked locally and in Redis (one EVALSHA
// round trip per call, see TestOneRoundTripPerCheck), through Entry/Exit.
func BenchmarkCheck(b *testing.B) {
	s := testserver.StartRedis(b)
	c := newClient(b, s, "bench:")
	rule := clusterRule("bench", 1e12, 31, 1, 10, 1000)
	local := flow.Rule{Resource: "bench-local", Grade: flow.GradeQPS, Count: 1e12}
	install(b, c, rule, local)
	ctx := context.Background()
	r := map[string]*runtime.Resource{
		"local":   runtime.Declare(runtime.ResourceSpec{Name: "bench-local"}),
		"cluster": runtime.Declare(runtime.ResourceSpec{Name: "bench"}),
	}
	for _, name := range []string{"local", "cluster"} {
		res := r[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e, blk := res.Entry(ctx)
				if blk != nil {
					b.Fatal(blk)
				}
				e.Exit()
			}
		})
		b.Run(name+"-parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(8) // 8 callers per CPU: Redis round trips overlap
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					e, blk := res.Entry(ctx)
					if blk != nil {
						b.Error(blk)
						return
					}
					e.Exit()
				}
			})
		})
	}
	if st := c.Stats(); st.Failed != 0 {
		b.Fatalf("checks failed: %+v", st)
	}
}
