package wrappertest

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// blockSlot blocks every call of the resources it is told to, as Java's
// tests load a flow rule with count 0, and records the arguments calls
// carry.
type blockSlot struct {
	mu        sync.Mutex
	blocked   map[string]bool
	needsArgs bool
	args      []any
}

func (s *blockSlot) Bind(r *runtime.Resource) runtime.Checker {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &blockChecker{slot: s, block: s.blocked[r.Name()]}
}

type blockChecker struct {
	slot  *blockSlot
	block bool
}

func (c *blockChecker) Check(call *runtime.Call) *runtime.BlockError {
	c.slot.mu.Lock()
	c.slot.args = call.Args()
	c.slot.mu.Unlock()
	if c.block {
		return call.Block(runtime.BlockCustom, nil, "test")
	}
	return nil
}

func (c *blockChecker) Exit(*runtime.Call) {}

func (c *blockChecker) NeedsArgs() bool { return c.slot.needsArgs }

// setup installs a fresh clock and a slot blocking the given resources.
func setup(t *testing.T, block ...string) *blockSlot {
	t.Helper()
	t.Cleanup(runtime.SetClock(clocktest.New()))
	s := &blockSlot{blocked: map[string]bool{}}
	for _, r := range block {
		s.blocked[r] = true
	}
	runtime.RegisterSlot("wrappertest", runtime.OrderFlow, s)
	t.Cleanup(func() { runtime.UnregisterSlot("wrappertest") })
	return s
}

type stats struct{ threads, pass, block, exception float64 }

func statsOf(t *testing.T, resource string) stats {
	t.Helper()
	r := runtime.LookupResource(resource)
	require.NotNil(t, r, "resource %s declared", resource)
	n, now := r.ClusterNode(), runtime.NowMillis()
	return stats{float64(n.Threads()), n.PassQPS(now), n.BlockQPS(now), n.ExceptionQPS(now)}
}

func TestDeclaredAtInit(t *testing.T) {
	r := runtime.LookupResource("apiHot")
	require.NotNil(t, r, "declared before any call")
	assert.Equal(t, []string{"id", "tags"}, r.Spec().Params)
}

func TestAdmittedCallReturnsTheBusinessResult(t *testing.T) {
	setup(t)
	f := &Foo{}
	got, err := f.Foo(context.Background(), 1)
	require.NoError(t, err)
	assert.Equal(t, "Hello for 1", got)
	assert.Equal(t, stats{threads: 0, pass: 1}, statsOf(t, "apiFoo"))
}

func TestBlockedCallReachesTheBlockHandlerWithTheBlockError(t *testing.T) {
	setup(t, "apiFoo")
	f := &Foo{}
	got, err := f.Foo(context.Background(), 1121)
	require.NoError(t, err)
	assert.Equal(t, "Oops, 1121", got)
	require.NotNil(t, f.LastBlock)
	assert.Equal(t, runtime.BlockCustom, f.LastBlock.BlockType())
	assert.Equal(t, "test", f.LastBlock.TriggeredValue())
	assert.Equal(t, "apiFoo", f.LastBlock.Resource())
	assert.Equal(t, stats{block: 1}, statsOf(t, "apiFoo"))
}

func TestBlockHandlerBeatsFallback(t *testing.T) {
	setup(t, "apiFooWithFallback")
	f := &Foo{}
	got, err := f.FooWithFallback(context.Background(), 2221)
	require.NoError(t, err)
	assert.Equal(t, "Oops, 2221", got)
	assert.Zero(t, f.FallbackRuns)
}

func TestBlockedWithoutBlockHandlerReachesFallbackWithTheBlockError(t *testing.T) {
	setup(t, "apiFallbackOnly")
	f := &Foo{}
	got, err := f.FallbackOnly(context.Background(), 1)
	require.NoError(t, err)
	assert.Equal(t, 1, f.FallbackRuns)
	var b *runtime.BlockError
	require.ErrorAs(t, f.LastErr, &b)
	assert.Equal(t, "fallback: "+b.Error(), got)
	assert.Equal(t, stats{block: 1}, statsOf(t, "apiFallbackOnly"))
}

func TestDefaultFallbackHandlesBlocksAndErrors(t *testing.T) {
	setup(t, "apiDefault")
	f := &Foo{}
	got, err := f.AnotherFoo(context.Background(), 1)
	require.NoError(t, err)
	assert.Equal(t, "fallback", got)
	assert.ErrorIs(t, f.LastErr, runtime.ErrBlocked)

	setup(t) // unblocked
	got, err = f.AnotherFoo(context.Background(), TracedInput)
	require.NoError(t, err)
	assert.Equal(t, "fallback", got)
	assert.EqualError(t, f.LastErr, "traced")
	assert.Equal(t, 1.0, statsOf(t, "apiDefault").exception, "traced before the fallback")
}

func TestBlockedWithoutHandlerReturnsTheBlockError(t *testing.T) {
	setup(t, "apiBaz")
	got, err := (&Foo{}).Baz(context.Background(), 1)
	assert.Empty(t, got)
	assert.ErrorIs(t, err, runtime.ErrBlocked)
	var b *runtime.BlockError
	require.ErrorAs(t, err, &b)
	assert.Equal(t, "apiBaz", b.Resource())
}

func TestNoResultsBlockedReachesTheBlockHandler(t *testing.T) {
	setup(t, "apiFire")
	f := &Foo{}
	f.Fire(context.Background(), 1)
	require.NotNil(t, f.LastBlock)
}

func TestTracedErrorGoesToFallback(t *testing.T) {
	setup(t)
	f := &Foo{}
	got, err := f.FooWithFallback(context.Background(), TracedInput)
	require.NoError(t, err)
	assert.Equal(t, "eee...", got)
	assert.Equal(t, 1, f.FallbackRuns)
	assert.Equal(t, stats{pass: 1, exception: 1}, statsOf(t, "apiFooWithFallback"))
}

func TestTracedErrorWithoutFallbackIsReturned(t *testing.T) {
	setup(t)
	_, err := (&Foo{}).Foo(context.Background(), TracedInput)
	assert.EqualError(t, err, "traced")
	assert.Equal(t, stats{pass: 1, exception: 1}, statsOf(t, "apiFoo"))
}

func TestIgnoredErrorsAreNeitherTracedNorSentToFallback(t *testing.T) {
	setup(t)
	f := &Foo{}
	_, err := f.FooWithFallback(context.Background(), IgnoredInput)
	assert.ErrorIs(t, err, ErrIgnored, "ignored by value (errors.Is)")
	assert.Zero(t, f.FallbackRuns)
	assert.Equal(t, stats{pass: 1}, statsOf(t, "apiFooWithFallback"), "no exception counted")

	_, err = f.Foo(context.Background(), IgnoredType)
	var ie *IgnoredError
	assert.ErrorAs(t, err, &ie, "ignored by type (errors.As), through wrapping")
	_, err = f.Foo(context.Background(), IgnoredInput)
	assert.ErrorIs(t, err, ErrIgnored)
	assert.Equal(t, stats{pass: 2}, statsOf(t, "apiFoo"))
}

func TestPanicExitsTheEntryAndGoesOn(t *testing.T) {
	setup(t)
	f := &Foo{}
	assert.PanicsWithValue(t, "boom", func() { _, _ = f.Foo(context.Background(), PanicInput) })
	assert.PanicsWithValue(t, "boom", func() { f.Fire(context.Background(), PanicInput) })
	assert.Equal(t, stats{pass: 1, exception: 1}, statsOf(t, "apiFoo"), "the panic counts as an error; threads back to 0")
	assert.Equal(t, stats{pass: 1, exception: 1}, statsOf(t, "apiFire"))
}

func TestThreadsBackToZeroOnEveryPath(t *testing.T) {
	setup(t, "apiBaz")
	f := &Foo{}
	ctx := context.Background()
	for _, i := range []int{1, IgnoredInput, TracedInput, IgnoredType} {
		_, _ = f.Foo(ctx, i)
		_, _ = f.FooWithFallback(ctx, i)
		_, _ = f.FallbackOnly(ctx, i)
		_, _ = f.AnotherFoo(ctx, i)
		_, _ = f.Baz(ctx, i)
		f.Fire(ctx, i)
	}
	for _, r := range []string{"apiFoo", "apiFooWithFallback", "apiFallbackOnly", "apiDefault", "apiBaz", "apiFire"} {
		assert.Zero(t, statsOf(t, r).threads, r)
	}
}

func TestArgumentsReachHotParameterRulesOnlyWhenNeeded(t *testing.T) {
	s := setup(t)
	require.NoError(t, Hot(context.Background(), 7, "name", "a", "b"))
	assert.Nil(t, s.args, "no slot reads arguments: none boxed")

	s.needsArgs = true
	runtime.RulesChanged()
	require.NoError(t, Hot(context.Background(), 7, "name", "a", "b"))
	assert.Equal(t, []any{int64(7), []string{"a", "b"}}, s.args, "args= in order")
}

func TestBusinessCallSeesTheEntryAsParent(t *testing.T) {
	setup(t, "apiBaz")
	// A context of its own: nodes are linked where they are first created.
	ctx := runtime.EnterContext(context.Background(), "wrappertest-nesting", "")
	_, err := (&Foo{}).Outer(ctx)
	var b *runtime.BlockError
	require.ErrorAs(t, err, &b, "the nested call was made, and blocked")
	tree := runtime.Tree()
	assert.True(t, hasChild(tree, "apiOuter", "apiBaz"), "apiBaz is under apiOuter in the call tree")
}

func hasChild(n runtime.TreeNode, parent, child string) bool {
	if n.Name == parent {
		for _, c := range n.Children {
			if c.Name == child {
				return true
			}
		}
	}
	for _, c := range n.Children {
		if hasChild(c, parent, child) {
			return true
		}
	}
	return false
}

func TestBlockErrorFromANestedCallGoesToTheBlockHandler(t *testing.T) {
	setup(t, "apiBaz")
	f := &Foo{}
	got, err := f.OuterHandled(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "outer handled", got)
	require.NotNil(t, f.LastBlock)
	assert.Equal(t, "apiBaz", f.LastBlock.Resource(), "the nested resource's BlockError")
	assert.Equal(t, stats{pass: 1}, statsOf(t, "apiOuterHandled"), "not traced as an exception")
}

func TestLockHoldingResultsAreReturnedWithoutACopy(t *testing.T) {
	t.Run("admitted: the call's results", func(t *testing.T) {
		setup(t)
		c, err := NewCounter(7)
		require.NoError(t, err)
		assert.Equal(t, 7, c.N)
		c, err = NewCounter(TracedInput)
		assert.ErrorIs(t, err, errTraced)
		assert.Zero(t, c.N)
		assert.Panics(t, func() { _, _ = NewCounter(PanicInput) })
		assert.Equal(t, stats{pass: 3, exception: 2}, statsOf(t, "apiNewCounter"), "the error and the panic are traced")
	})
	t.Run("blocked: the zero value and the BlockError", func(t *testing.T) {
		setup(t, "apiNewCounter")
		c, err := NewCounter(7)
		var be *runtime.BlockError
		require.ErrorAs(t, err, &be)
		assert.Zero(t, c.N)
		assert.Equal(t, 1.0, statsOf(t, "apiNewCounter").block)
	})
}
