package metrics_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

func TestAResourceWithItsHistogramOnIsExportedAsAPrometheusHistogram(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	const res, other = "metrics.histogram", "metrics.histogram.off"
	runtime.EnableRTHistogram(res)
	reg, _ := newRegistry(t)
	for _, d := range []time.Duration{40 * time.Microsecond, 420 * time.Microsecond, 420 * time.Microsecond, 3 * time.Millisecond} {
		require.True(t, call(clk, res, d, nil))
	}
	require.True(t, call(clk, other, time.Millisecond, nil))

	gatherAndCompare(t, reg, `
# HELP sentinel_resource_call_duration_seconds Response times of completed calls, per resource whose histogram is on (runtime.EnableRTHistogram), in microsecond buckets; counts calls, not batch tokens.
# TYPE sentinel_resource_call_duration_seconds histogram
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="2.5e-05"} 0
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="5e-05"} 1
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="0.0001"} 1
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="0.00025"} 1
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="0.0005"} 3
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="0.001"} 3
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="0.0025"} 3
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="0.005"} 4
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="0.01"} 4
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="0.025"} 4
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="0.05"} 4
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="0.1"} 4
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="0.25"} 4
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="0.5"} 4
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="1"} 4
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="2.5"} 4
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="5"} 4
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="10"} 4
sentinel_resource_call_duration_seconds_bucket{resource="metrics.histogram",le="+Inf"} 4
sentinel_resource_call_duration_seconds_sum{resource="metrics.histogram"} 0.00388
sentinel_resource_call_duration_seconds_count{resource="metrics.histogram"} 4
`, "sentinel_resource_call_duration_seconds")
	assert.Empty(t, lint(t, reg))
}
