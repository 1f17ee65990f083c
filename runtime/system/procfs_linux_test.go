package system

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRealProcReadings reads this machine's /proc and cgroup files.
func TestRealProcReadings(t *testing.T) {
	p := newProcReader("/")
	load, err := p.SystemLoad()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, load, 0.0)
	lim, limited := p.cgroupLimit()
	t.Logf("load %.2f, cgroup CPU limit %v (%.2f CPUs)", load, limited, lim.cpus)

	first, err := p.CPUUsage()
	require.NoError(t, err)
	assert.Equal(t, -1.0, first)
	// Burn some CPU so that the counters move between the readings.
	usage := -1.0
	for i := 0; i < 200 && usage < 0; i++ {
		x := 0
		for j := range 2_000_000 {
			x += j * j
		}
		_ = x
		usage, err = p.CPUUsage()
		require.NoError(t, err)
	}
	t.Logf("cpu usage %.3f", usage)
	assert.GreaterOrEqual(t, usage, 0.0)
	assert.LessOrEqual(t, usage, 1.0)
}
