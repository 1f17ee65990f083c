package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// Java's Constants.ON, read first in CtSph.entryWithPriority: off, a call
// gets an entry with no chain, so no slot checks it and no node counts it.
func TestSwitchOffPassesEverythingAndCountsNothing(t *testing.T) {
	c := clocktest.Install(t)
	name := t.Name()
	s := newTestSlot(name)
	s.block = func(*runtime.Call) bool { return true }
	register(t, name, 100, s)
	t.Cleanup(func() { runtime.SetEnabled(true) })

	_, b := runtime.Entry(context.Background(), name)
	require.NotNil(t, b, "on: the rule blocks")

	runtime.SetEnabled(false)
	assert.False(t, runtime.Enabled())
	for range 5 {
		e, b := runtime.Entry(context.Background(), name)
		require.Nil(t, b, "off: every call passes")
		e.Exit()
	}
	cn := runtime.LookupResource(name).ClusterNode()
	now := c.Millis()
	assert.EqualValues(t, 0, cn.PassQPS(now), "off: nothing is counted")
	assert.EqualValues(t, 1, cn.BlockQPS(now), "only the block from before")
	assert.EqualValues(t, 0, cn.Threads())

	runtime.SetEnabled(true)
	assert.True(t, runtime.Enabled())
	_, b = runtime.Entry(context.Background(), name)
	require.NotNil(t, b, "on again: the rule applies to the next call")
	assert.EqualValues(t, 2, cn.BlockQPS(c.Millis()))
}

// An entry admitted while on still counts its completion when it exits
// while off, so the thread count returns to zero.
func TestSwitchOffBetweenEntryAndExitKeepsThreadsBalanced(t *testing.T) {
	c := clocktest.Install(t)
	name := t.Name()
	t.Cleanup(func() { runtime.SetEnabled(true) })
	e, b := runtime.Entry(context.Background(), name)
	require.Nil(t, b)
	cn := runtime.LookupResource(name).ClusterNode()
	assert.EqualValues(t, 1, cn.Threads())

	runtime.SetEnabled(false)
	c.Advance(20 * time.Millisecond)
	e.Exit()
	assert.EqualValues(t, 0, cn.Threads())
	assert.EqualValues(t, 1, cn.SuccessQPS(c.Millis()))
}

func TestSwitchChangesAreLogged(t *testing.T) {
	lb := logtest.Capture(t)
	t.Cleanup(func() { runtime.SetEnabled(true) })
	runtime.SetEnabled(false)
	runtime.SetEnabled(false) // no change, no line
	runtime.SetEnabled(true)
	lines := lb.Lines("global switch changed")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], "enabled=false")
	assert.Contains(t, lines[1], "enabled=true")
}

// Calls nested across a change of the switch keep the books balanced:
// a call entered while off is never counted, one entered while on is
// counted to its exit.
func TestSwitchChangesBetweenNestedCalls(t *testing.T) {
	clocktest.Install(t)
	t.Cleanup(func() { runtime.SetEnabled(true) })
	outer, inner := t.Name()+".outer", t.Name()+".inner"

	runtime.SetEnabled(false)
	p, b := runtime.Entry(context.Background(), outer)
	require.Nil(t, b)
	runtime.SetEnabled(true)
	c, b := runtime.Entry(p.Context(), inner)
	require.Nil(t, b)
	assert.EqualValues(t, 1, runtime.LookupResource(inner).ClusterNode().Threads())
	p.Exit()
	c.Exit()
	assert.EqualValues(t, 0, runtime.LookupResource(inner).ClusterNode().Threads())
	assert.EqualValues(t, 0, runtime.LookupResource(outer).ClusterNode().Threads())

	p, _ = runtime.Entry(context.Background(), outer)
	runtime.SetEnabled(false)
	c, _ = runtime.Entry(p.Context(), inner)
	c.Exit()
	p.Exit()
	assert.EqualValues(t, 0, runtime.LookupResource(outer).ClusterNode().Threads())
}
