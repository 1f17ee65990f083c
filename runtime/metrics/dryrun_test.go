package metrics_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// Would-be blocks of dry-run rules are a series of their own, per resource
// and kind of rule; the calls count as passes, never as blocks.
func TestDryRunBlocksSeries(t *testing.T) {
	clk := clocktest.Install(t)
	const res = "metrics.dryrun"
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: res, Grade: flow.GradeQPS, Count: 2, DryRun: true}}))
	defer flow.LoadRules(nil)
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: res, Grade: degrade.ErrorCount, Count: 1,
		TimeWindow: 10, MinRequestAmount: 1, DryRun: true}}))
	defer degrade.LoadRules(nil)
	reg, _ := newRegistry(t)

	_, ok := value(t, reg, "sentinel_dry_run_blocks_total", "resource", res, "type", "flow")
	assert.False(t, ok, "no series before the first would-be block")
	for range 5 {
		require.True(t, call(clk, res, 0, assert.AnError), "dry run: every call passes")
	}
	l := []string{"resource", res}
	assert.EqualValues(t, 3, mustValue(t, reg, "sentinel_dry_run_blocks_total", "resource", res, "type", "flow"))
	assert.EqualValues(t, 3, mustValue(t, reg, "sentinel_dry_run_blocks_total", "resource", res, "type", "degrade"),
		"two errors opened the breaker; it would have refused the next three")
	assert.EqualValues(t, 5, mustValue(t, reg, "sentinel_resource_pass_total", l...))
	assert.EqualValues(t, 0, mustValue(t, reg, "sentinel_resource_block_total", l...))
	assert.EqualValues(t, 0, mustValue(t, reg, "sentinel_resource_block_by_type_total", "resource", res, "block_type", "flow"))
	assert.Empty(t, lint(t, reg))
}
