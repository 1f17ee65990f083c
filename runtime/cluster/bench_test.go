package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/cluster"
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

// A call under a leased cluster rule against the same call under a local
// rule, through Entry/Exit, and the Redis commands the leases cost: every
// EVALSHA and EVAL the client sends (heartbeats off), per 1,000 admitted
// calls. The cluster rule's count (10^9 a second) is never reached,
// so every call is admitted: the cost of holding a busy instance's limit
// in Redis.
func BenchmarkLeasedCheck(b *testing.B) {
	s := testserver.StartRedis(b)
	c := newClient(b, s, "benchlease:", func(cfg *cluster.Config) {
		cfg.Leases = true
		cfg.HeartbeatInterval = time.Hour
	})
	rule := clusterRule("bench-lease", 1e9, 33, 1, 10, 1000)
	local := flow.Rule{Resource: "bench-lease-local", Grade: flow.GradeQPS, Count: 1e12}
	install(b, c, rule, local)
	rdb := s.Client(b)
	ctx := context.Background()
	r := map[string]*runtime.Resource{
		"local":  runtime.Declare(runtime.ResourceSpec{Name: "bench-lease-local"}),
		"leased": runtime.Declare(runtime.ResourceSpec{Name: "bench-lease"}),
	}
	commands := func() int64 {
		calls := testserver.CommandCalls(b, rdb)
		return calls["evalsha"] + calls["eval"]
	}
	for _, name := range []string{"local", "leased"} {
		res := r[name]
		report := func(b *testing.B, run func()) {
			before, leased := commands(), c.Stats().Leased
			run()
			if name == "leased" {
				admitted := c.Stats().Leased - leased
				b.ReportMetric(1000*float64(commands()-before)/float64(max(1, admitted)), "redis-cmds/1000-admitted")
			}
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			report(b, func() {
				for b.Loop() {
					e, blk := res.Entry(ctx)
					if blk != nil {
						b.Fatal(blk)
					}
					e.Exit()
				}
			})
		})
		b.Run(name+"-parallel", func(b *testing.B) {
			b.ReportAllocs()
			report(b, func() {
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
		})
	}
	if st := c.Stats(); st.Failed != 0 {
		b.Fatalf("checks failed: %+v", st)
	}
}
