package runtime_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type dryRule struct{ name string }

func (r *dryRule) ResourceName() string { return r.name }
func (r *dryRule) String() string       { return "dry rule of " + r.name }

// dryRunSlot counts a would-be block of every call and admits it.
type dryRunSlot struct {
	name string
	rule *dryRule
}

func (s dryRunSlot) Bind(r *runtime.Resource) runtime.Checker {
	if r.Name() != s.name {
		return nil
	}
	return s
}

func (s dryRunSlot) Check(c *runtime.Call) *runtime.BlockError {
	runtime.CountDryRunBlock(c, runtime.BlockFlow, s.rule)
	return nil
}

func (dryRunSlot) Exit(*runtime.Call) {}

// A would-be block is counted per resource and type apart from blocks,
// the call passes and counts as a pass, and the block log writes it on a
// line marked as dry run.
func TestCountDryRunBlock(t *testing.T) {
	runtime.FlushBlockLog()
	clocktest.Install(t)
	logs := logtest.Capture(t)
	name := t.Name()
	register(t, name, runtime.OrderFlow, dryRunSlot{name, &dryRule{name}})

	for range 3 {
		e, b := runtime.Entry(context.Background(), name)
		require.Nil(t, b)
		e.Exit()
	}
	e, b := runtime.Entry(runtime.EnterContext(context.Background(), "web", "appA"), name, runtime.WithBatchCount(4))
	require.Nil(t, b)
	e.Exit()

	r := runtime.LookupResource(name)
	assert.EqualValues(t, 7, r.DryRunBlockCount(runtime.BlockFlow), "batch counts included")
	assert.Zero(t, r.BlockCount(runtime.BlockFlow), "no call was blocked")
	assert.Zero(t, r.DryRunBlockCount(runtime.BlockDegrade))
	assert.Zero(t, r.DryRunBlockCount(runtime.BlockType(200)))
	assert.EqualValues(t, 7, r.ClusterNode().PassQPS(runtime.NowMillis()), "the calls passed")

	runtime.FlushBlockLog()
	lines := logs.Lines("resource=" + name)
	require.Len(t, lines, 2)
	for _, l := range lines {
		assert.Contains(t, l, `msg="sentinel: would block (dry run)"`)
		assert.Contains(t, l, "type=flow")
		assert.Contains(t, l, "dry rule of "+name)
	}
	assert.Contains(t, lines[0], "origin=appA", "the busiest first")
	assert.Contains(t, lines[0], "blocks=4")
	assert.Contains(t, lines[1], "blocks=3")
}

// Counting a would-be block allocates nothing.
func TestCountDryRunBlockAllocatesNothing(t *testing.T) {
	clocktest.Install(t)
	logtest.Capture(t)
	name := t.Name()
	register(t, name, runtime.OrderFlow, dryRunSlot{name, &dryRule{name}})
	r := runtime.Declare(runtime.ResourceSpec{Name: name})
	allocs := testing.AllocsPerRun(100, func() {
		e, _ := r.Entry(context.Background())
		e.Exit()
	})
	assert.Equal(t, 1.0, allocs, "the entry only")
}
