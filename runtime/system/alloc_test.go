package system_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/system"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An admitted inbound call under every threshold allocates its entry and
// nothing else.
func TestAdmittedCallsAllocateOnlyTheEntry(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	_, f := setup(t)
	f.set(0.1, 0.1)
	require.NoError(t, system.LoadRules([]system.Rule{
		{QPS: 1e12, MaxThread: 1e9, AvgRT: 1e9, HighestSystemLoad: 100, HighestCPUUsage: 1},
	}))
	r := runtime.Declare(runtime.ResourceSpec{Name: "sys-alloc", Traffic: runtime.Inbound})
	ctx := context.Background()
	allocs := testing.AllocsPerRun(200, func() {
		e, b := r.Entry(ctx)
		if b != nil {
			t.Fatal(b)
		}
		e.Exit()
	})
	assert.Equal(t, 1.0, allocs)
}
