package degrade

import (
	"math"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// BenchmarkClosedBreakerCheckExit measures one closed breaker's own cost
// per call (Check, then Exit with a clock read), without the runtime's
// entry around it.
func BenchmarkClosedBreakerCheckExit(b *testing.B) {
	rule := Rule{Resource: "bench", Grade: SlowRequestRatio, Count: math.MaxFloat64, SlowRatioThreshold: 1, TimeWindow: 10}.normalized()
	k := newChecker([]*breaker{newBreaker(&rule, "bench")})
	c := &runtime.Call{}
	b.ReportAllocs()
	for b.Loop() {
		if k.Check(c) != nil {
			b.Fatal("blocked")
		}
		k.Exit(c)
	}
}

func BenchmarkClosedBreakerCheckExitParallel(b *testing.B) {
	rule := Rule{Resource: "bench", Grade: SlowRequestRatio, Count: math.MaxFloat64, SlowRatioThreshold: 1, TimeWindow: 10}.normalized()
	k := newChecker([]*breaker{newBreaker(&rule, "bench")})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		c := &runtime.Call{}
		for pb.Next() {
			if k.Check(c) != nil {
				b.Error("blocked")
				return
			}
			k.Exit(c)
		}
	})
}
