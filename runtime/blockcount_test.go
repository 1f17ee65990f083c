package runtime_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

func TestBlockCountByType(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	s := newTestSlot(name)
	s.block = func(*runtime.Call) bool { return true }
	register(t, name, 0, s)

	for range 3 {
		_, b := runtime.Entry(context.Background(), name, runtime.WithBatchCount(2))
		require.NotNil(t, b)
	}
	r := runtime.LookupResource(name)
	assert.EqualValues(t, 6, r.BlockCount(runtime.BlockCustom), "batch counts included")
	assert.EqualValues(t, 0, r.BlockCount(runtime.BlockFlow))
	assert.EqualValues(t, 0, r.BlockCount(runtime.BlockType(200)), "an unknown type has none")
}

// A resource remembers the type and rule of its latest block, and says
// whether any rule protects it or it is only observed.
func TestResourceSaysWhyItBlocksAndWhetherItIsProtected(t *testing.T) {
	clk := clocktest.Install(t)
	name := t.Name()
	_, b := runtime.Entry(context.Background(), name)
	require.Nil(t, b)
	r := runtime.LookupResource(name)
	assert.False(t, r.Protected(), "no rule applies: only observed")
	_, ok := r.LastBlock()
	assert.False(t, ok, "never blocked")

	rule := &blockingRule{resource: name}
	s := newTestSlot(name)
	s.block = func(*runtime.Call) bool { return true }
	s.rule = rule
	register(t, name, 0, s)
	assert.True(t, r.Protected(), "a slot binds to it")

	_, b = runtime.Entry(context.Background(), name)
	require.NotNil(t, b)
	last, ok := r.LastBlock()
	require.True(t, ok)
	assert.Equal(t, runtime.BlockCustom, last.Type)
	assert.Same(t, rule, last.Rule)
	assert.Equal(t, clk.Millis()/1000, last.Second)
}

type blockingRule struct{ resource string }

func (r *blockingRule) ResourceName() string { return r.resource }

// sharedBlock is a slot that refuses every call with one BlockError built
// in advance, as rule slots do for the refusals of one rule.
type sharedBlock struct{ b *runtime.BlockError }

func (s sharedBlock) Bind(*runtime.Resource) runtime.Checker  { return s }
func (s sharedBlock) Check(*runtime.Call) *runtime.BlockError { return s.b }
func (sharedBlock) Exit(*runtime.Call)                        {}

// Counting a refusal by type and remembering its rule cost the refused
// call nothing: it allocates what a refusal allocated before (its entry),
// however many times the same rule refuses.
func TestRememberingWhyCostsARefusalNoAllocation(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	rule := &blockingRule{resource: name}
	register(t, name, 0, sharedBlock{runtime.NewBlockError(runtime.BlockFlow, name, rule, nil)})
	r := runtime.Declare(runtime.ResourceSpec{Name: name})
	refuse := func() {
		if _, b := r.Entry(context.Background()); b == nil {
			t.Fatal("admitted")
		}
	}
	refuse()
	allocs := testing.AllocsPerRun(200, refuse)
	assert.EqualValues(t, 1, allocs, "the entry alone")
	assert.EqualValues(t, 202, r.BlockCount(runtime.BlockFlow))
	last, ok := r.LastBlock()
	require.True(t, ok)
	assert.Equal(t, runtime.BlockFlow, last.Type)
	assert.Same(t, rule, last.Rule)
}
