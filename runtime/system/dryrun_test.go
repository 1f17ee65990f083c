package system_test

import (
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/system"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sysWouldBlocks(res string) int64 {
	r := runtime.LookupResource(res)
	if r == nil {
		return 0
	}
	return r.DryRunBlockCount(runtime.BlockSystem)
}

// System rules hold for the whole process, so the enforcing and the dry-run
// rule see the same traffic one after the other: the CPU readings and a
// QPS burst in one window.
func TestDryRunSystemCountsTheEnforcingRulesBlocks(t *testing.T) {
	c, f := setup(t)
	readings := []float64{0.5, 0.9, 0.85, 0.7, 0.95, 0.2}
	drive := func(res string, dry bool) (blocks int64) {
		r := rule(func(r *system.Rule) { r.HighestCPUUsage = 0.8; r.QPS = 4; r.DryRun = dry })
		require.NoError(t, system.LoadRules([]system.Rule{r}))
		for _, u := range readings {
			f.set(-1, u)
			for range 3 {
				c.Advance(300 * time.Millisecond) // below the QPS threshold
				e, b := enter(t, res, inbound)
				if b != nil {
					blocks++
					continue
				}
				e.Exit()
			}
		}
		f.set(-1, -1)
		c.Advance(2 * time.Second)
		for range 7 { // one burst: 4 pass
			e, b := enter(t, res, inbound)
			if b != nil {
				blocks++
				continue
			}
			e.Exit()
		}
		c.Advance(2 * time.Second)
		return blocks
	}
	enforced := drive("sys-dry-enf", false)
	base := sysWouldBlocks("sys-dry-dry")
	assert.Zero(t, drive("sys-dry-dry", true), "the dry run admits every call")
	assert.EqualValues(t, 9+3, enforced)
	assert.Equal(t, enforced, sysWouldBlocks("sys-dry-dry")-base)
	assert.Zero(t, runtime.LookupResource("sys-dry-dry").BlockCount(runtime.BlockSystem))
}

// Dry-run thresholds are compiled apart from the enforcing ones and check
// only the calls those admit.
func TestDryRunSystemThresholdsApartFromEnforcing(t *testing.T) {
	setup(t)
	require.NoError(t, system.LoadRules([]system.Rule{
		rule(func(r *system.Rule) { r.QPS = 5 }),
		rule(func(r *system.Rule) { r.QPS = 2; r.DryRun = true }),
	}))
	assert.Equal(t, float64(5), system.InForce().QPS, "the enforcing rules' thresholds")
	d := system.DryRunInForce()
	assert.Equal(t, float64(2), d.QPS)
	assert.True(t, d.DryRun)
	base := sysWouldBlocks("sys-dry-apart")
	for range 5 {
		mustPass(t, "sys-dry-apart", inbound).Exit()
	}
	mustBlock(t, "sys-dry-apart", system.MetricQPS, inbound)
	assert.Equal(t, base+3, sysWouldBlocks("sys-dry-apart"), "calls 3 to 5; the sixth was blocked, not a would-be block")
}
