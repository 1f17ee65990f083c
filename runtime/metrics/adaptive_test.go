package metrics_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

func TestAdaptiveLimitersAreGauges(t *testing.T) {
	clocktest.Install(t)
	const res = "metrics-adaptive"
	require.NoError(t, adaptive.LoadRules([]adaptive.Rule{{Resource: res, MinLimit: 2}}))
	defer adaptive.LoadRules(nil)
	reg, _ := newRegistry(t)

	e, b := runtime.Entry(context.Background(), res)
	require.Nil(t, b)
	defer e.Exit()
	e2, b := runtime.Entry(context.Background(), res)
	require.Nil(t, b)
	defer e2.Exit()
	_, b = runtime.Entry(context.Background(), res)
	require.NotNil(t, b)

	gatherAndCompare(t, reg, `
# HELP sentinel_adaptive_in_flight The calls in flight an adaptive concurrency rule counts now, per resource.
# TYPE sentinel_adaptive_in_flight gauge
sentinel_adaptive_in_flight{resource="metrics-adaptive"} 2
# HELP sentinel_adaptive_limit The calls in flight an adaptive concurrency rule admits now, per resource.
# TYPE sentinel_adaptive_limit gauge
sentinel_adaptive_limit{resource="metrics-adaptive"} 2
# HELP sentinel_adaptive_min_rtt_seconds The unloaded response time an adaptive concurrency rule measured by its last probe, per resource (0 until measured).
# TYPE sentinel_adaptive_min_rtt_seconds gauge
sentinel_adaptive_min_rtt_seconds{resource="metrics-adaptive"} 0
# HELP sentinel_adaptive_probing 1 while an adaptive concurrency rule holds its limit at minLimit to measure the unloaded response time, else 0.
# TYPE sentinel_adaptive_probing gauge
sentinel_adaptive_probing{resource="metrics-adaptive"} 1
`, "sentinel_adaptive_limit", "sentinel_adaptive_in_flight", "sentinel_adaptive_min_rtt_seconds", "sentinel_adaptive_probing")

	blocks, ok := value(t, reg, "sentinel_resource_block_by_type_total", "resource", res, "block_type", "adaptive")
	assert.True(t, ok)
	assert.Equal(t, 1.0, blocks)
	rules, _ := value(t, reg, "sentinel_rules", "kind", "adaptive")
	assert.Equal(t, 1.0, rules)
	assert.Empty(t, lint(t, reg))
}
