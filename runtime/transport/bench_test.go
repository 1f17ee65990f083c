package transport_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// BenchmarkMetricNodes is what the dashboard's fetch of a few seconds
// costs every second, with 1,000 resources called each second for a
// minute.
func BenchmarkMetricNodes(b *testing.B) {
	clk := clocktest.Install(b)
	for range 60 {
		for i := range 1000 {
			if e, blk := runtime.Entry(context.Background(), fmt.Sprintf("bench.metric.%d", i)); blk == nil {
				e.Exit()
			}
		}
		clk.Advance(time.Second)
	}
	now := clk.Millis()
	b.ResetTimer()
	b.ReportAllocs()
	for b.Loop() {
		if n := transport.MetricNodes(now, now-6000, now); len(n) < 5000 {
			b.Fatalf("%d lines", len(n))
		}
	}
}
