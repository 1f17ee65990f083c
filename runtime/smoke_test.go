package runtime_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/stretchr/testify/require"
)

type blockAll struct{ name string }

func (s blockAll) Bind(r *runtime.Resource) runtime.Checker {
	if r.Name() != s.name {
		return nil
	}
	return s
}
func (s blockAll) Check(c *runtime.Call) *runtime.BlockError {
	return c.Block(runtime.BlockCustom, nil, nil)
}
func (s blockAll) Exit(*runtime.Call) {}

func TestSmoke(t *testing.T) {
	c := clocktest.New()
	defer runtime.SetClock(c)()
	ctx := runtime.EnterContext(context.Background(), "smoke-ctx", "appA")
	e, b := runtime.Entry(ctx, "smoke-a", runtime.WithTrafficType(runtime.Inbound))
	require.Nil(t, b)
	e2, b := runtime.Entry(e.Context(), "smoke-b")
	require.Nil(t, b)
	c.Advance(7)
	e2.Exit()
	e.Exit()
	e.Exit()
	r := runtime.LookupResource("smoke-a")
	now := runtime.NowMillis()
	require.Equal(t, 1.0, r.ClusterNode().PassQPS(now))
	require.Equal(t, int64(0), r.ClusterNode().Threads())
	require.NotNil(t, r.ClusterNode().OriginNode("appA"))
	tree := runtime.Tree()
	require.NotEmpty(t, tree.Children)

	runtime.RegisterSlot("blockall", 0, blockAll{"smoke-c"})
	defer runtime.UnregisterSlot("blockall")
	e3, b := runtime.Entry(context.Background(), "smoke-c")
	require.Nil(t, e3)
	require.NotNil(t, b)
	require.ErrorIs(t, b, runtime.ErrBlocked)
	require.Equal(t, 1.0, runtime.LookupResource("smoke-c").ClusterNode().BlockQPS(runtime.NowMillis()))
}
