package runtime_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

type ctxKeyForTest struct{}

func TestEntryInSharedContextCountsAsEntryInContextDoes(t *testing.T) {
	clocktest.Install(t)
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	child := runtime.Declare(runtime.ResourceSpec{Name: t.Name() + "/child"})
	shared := runtime.NewSharedContext("web-shared", "appA")
	base := context.WithValue(context.Background(), ctxKeyForTest{}, "v")

	e, st, b := runtime.EntryInSharedContextWith[callState](res, base, shared)
	require.Nil(t, b)
	assert.Equal(t, callState{}, *st)
	name, origin := runtime.ContextName(e.Context())
	assert.Equal(t, "web-shared", name)
	assert.Equal(t, "appA", origin)
	assert.Equal(t, "v", e.Context().Value(ctxKeyForTest{}), "the caller's values")
	ce, b := runtime.Entry(e.Context(), child.Name())
	require.Nil(t, b)
	name, _ = runtime.ContextName(ce.Context())
	assert.Equal(t, "web-shared", name, "a child is in its parent's context")
	ce.Exit()
	e.Exit()

	n := res.Node("web-shared")
	require.NotNil(t, n, "counted in the context entered")
	assert.Equal(t, []*runtime.DefaultNode{child.Node("web-shared")}, n.Children(), "the child nests under the call")

	e2, b := res.EntryInSharedContext(base, shared)
	require.Nil(t, b)
	e2.Exit()

	outer := runtime.EnterContext(context.Background(), "outer-shared", "appB")
	e, b = res.EntryInSharedContext(outer, shared)
	require.Nil(t, b)
	name, origin = runtime.ContextName(e.Context())
	assert.Equal(t, "outer-shared", name, "as EnterContext: the outermost context names the tree")
	assert.Equal(t, "appB", origin)
	e.Exit()
}

func TestEntryInSharedContextAllocatesTheEntryAlone(t *testing.T) {
	clocktest.Install(t)
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	shared := runtime.NewSharedContext("web-shared-allocs", "")
	ctx := context.Background()
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() {
		e, _ := res.EntryInSharedContext(ctx, shared)
		e.Exit()
	}))
}
