package runtime_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// callState stands for an adapter's per-call state.
type callState struct {
	code int
	note string
}

func TestEntryInContextWithEntersTheContextAndHandsOutAZeroState(t *testing.T) {
	clocktest.Install(t)
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	e, st, b := runtime.EntryInContextWith[callState](res, context.Background(), "web-with", "appA")
	require.Nil(t, b)
	require.NotNil(t, e)
	require.NotNil(t, st)
	assert.Equal(t, callState{}, *st)
	name, origin := runtime.ContextName(e.Context())
	assert.Equal(t, "web-with", name)
	assert.Equal(t, "appA", origin)
	st.code = 500
	e.Exit()
	assert.Equal(t, 500, st.code, "the state outlives Exit")
	assert.NotNil(t, res.Node("web-with"), "counted in the context entered")
	assert.NotNil(t, res.ClusterNode().OriginNode("appA"))

	e2, st2, b := runtime.EntryInContextWith[callState](res, context.Background(), "web-with", "appA")
	require.Nil(t, b)
	assert.NotSame(t, st, st2, "every call has its own state")
	assert.Equal(t, callState{}, *st2)
	e2.Exit()

	outer := runtime.EnterContext(context.Background(), "outer-with", "appB")
	e, st, b = runtime.EntryInContextWith[callState](res, outer, "inner-with", "appC")
	require.Nil(t, b)
	require.NotNil(t, st)
	name, origin = runtime.ContextName(e.Context())
	assert.Equal(t, "outer-with", name, "as EnterContext: the outermost context names the tree")
	assert.Equal(t, "appB", origin)
	e.Exit()
}

func TestEntryWithNestsAndHandsOutAZeroState(t *testing.T) {
	clocktest.Install(t)
	parent := runtime.Declare(runtime.ResourceSpec{Name: t.Name() + "/parent"})
	child := runtime.Declare(runtime.ResourceSpec{Name: t.Name() + "/child"})
	var traffic runtime.TrafficType
	slot := newTestSlot(child.Name())
	slot.block = func(c *runtime.Call) bool {
		traffic = c.Traffic()
		return false
	}
	register(t, "entry-with-nest", runtime.OrderFlow, slot)
	ctx := runtime.EnterContext(context.Background(), "with-nest", "appA")
	pe, st, b := runtime.EntryWith[callState](parent, ctx)
	require.Nil(t, b)
	require.NotNil(t, st)
	ce, cst, b := runtime.EntryWith[callState](child, pe.Context(), runtime.WithTrafficType(runtime.Inbound))
	require.Nil(t, b)
	assert.NotSame(t, st, cst)
	name, origin := runtime.ContextName(ce.Context())
	assert.Equal(t, "with-nest", name)
	assert.Equal(t, "appA", origin)
	ce.Exit()
	pe.Exit()
	assert.Equal(t, runtime.Inbound, traffic, "the options apply")
	assert.Equal(t, []string{"check " + child.Name(), "exit " + child.Name()}, slot.log())
	assert.NotNil(t, child.Node("with-nest"), "counted in the caller's context")

	e, st, b := runtime.EntryWith[callState](parent, nil) // a nil context is the background
	require.Nil(t, b)
	require.NotNil(t, st)
	e.Exit()
}

func TestEntryWithBlockedHandsOutNoState(t *testing.T) {
	clocktest.Install(t)
	slot := newTestSlot(t.Name())
	slot.block = func(*runtime.Call) bool { return true }
	register(t, "entry-with-block", runtime.OrderFlow, slot)
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})

	e, st, b := runtime.EntryWith[callState](res, context.Background())
	require.NotNil(t, b)
	assert.Nil(t, e)
	assert.Nil(t, st)

	e, st, b = runtime.EntryInContextWith[callState](res, context.Background(), "with-block", "appA")
	require.NotNil(t, b)
	assert.Nil(t, e)
	assert.Nil(t, st)
	assert.EqualValues(t, 2, res.BlockCount(runtime.BlockCustom))
}

func TestEntryWithAllocatesOnce(t *testing.T) {
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	warm := func() {
		e, _, _ := runtime.EntryInContextWith[callState](res, context.Background(), "with-alloc", "appA")
		e.Exit()
		e, _, _ = runtime.EntryWith[callState](res, context.Background())
		e.Exit()
	}
	warm()
	assert.EqualValues(t, 1, testing.AllocsPerRun(200, func() {
		e, st, _ := runtime.EntryInContextWith[callState](res, context.Background(), "with-alloc", "appA")
		st.code = 1
		e.Exit()
	}), "the Sentinel context, the entry and the state")
	assert.EqualValues(t, 1, testing.AllocsPerRun(200, func() {
		e, st, _ := runtime.EntryWith[callState](res, context.Background())
		st.code = 1
		e.Exit()
	}), "the entry and the state")
}
