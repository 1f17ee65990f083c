package rpcguard

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Names share the slots of recent names: more names than slots, each
// entered and looked up twice, all find their own resource.
// recentRuns numbers the runs of TestRecentNamesFindTheirOwnResource
// (-count): each names methods no earlier run called.
var recentRuns atomic.Int64

func TestRecentNamesFindTheirOwnResource(t *testing.T) {
	run := recentRuns.Add(1)
	names := make([]string, 3*recentSlots)
	for i := range names {
		names[i] = fmt.Sprintf("/rpcguard.Service%d/Method%d", run, i)
		assert.Nil(t, Resource(names[i]), "not called yet")
	}
	for range 2 {
		for _, name := range names {
			e, b := Enter(context.Background(), name, "", runtime.Inbound, nil)
			require.Nil(t, b)
			assert.Equal(t, name, e.Resource().Name())
			e.Exit()
			assert.Same(t, runtime.LookupResource(name), Resource(name), name)
		}
	}
}

// A name a client sent once cannot hold the slot of a name it calls
// for good: a name that keeps missing takes the slot back.
func TestASlotHeldByAnotherNameIsTakenBack(t *testing.T) {
	name := t.Name()
	res := runtime.Declare(runtime.ResourceSpec{Name: name})
	slot := recentSlot(name)
	slot.Store(&named{name: name + "/someone else's", res: res})
	for range 64 {
		require.Same(t, res, Resource(name))
	}
	held := slot.Load()
	require.NotNil(t, held)
	assert.Equal(t, name, held.name)
}
