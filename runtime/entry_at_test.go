package runtime_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// A refused call leaves the caller's memory free: zeroed, it serves the
// next call, which counts and nests as an entry of its own would.
func TestEntryInSharedContextAtEntersInTheCallersMemory(t *testing.T) {
	clocktest.Install(t)
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	child := runtime.Declare(runtime.ResourceSpec{Name: t.Name() + "/child"})
	refuse := true
	s := newTestSlot(res.Name())
	s.block = func(*runtime.Call) bool { return refuse }
	register(t, t.Name(), 100, s)
	shared := runtime.NewSharedContext("web-shared-at", "")
	ctx := context.Background()

	mem := new(runtime.SentinelEntry)
	e, b := res.EntryInSharedContextAt(mem, ctx, shared)
	require.NotNil(t, b)
	assert.Nil(t, e)

	*mem = runtime.SentinelEntry{}
	refuse = false
	e, b = res.EntryInSharedContextAt(mem, ctx, shared)
	require.Nil(t, b)
	assert.Same(t, mem, e, "entered in the caller's memory")
	name, _ := runtime.ContextName(e.Context())
	assert.Equal(t, "web-shared-at", name)
	ce, b := runtime.Entry(e.Context(), child.Name())
	require.Nil(t, b)
	ce.Exit()
	e.Exit()

	n := res.Node("web-shared-at")
	require.NotNil(t, n)
	assert.Equal(t, []*runtime.DefaultNode{child.Node("web-shared-at")}, n.Children(), "the child nests under the call")
	assert.Equal(t, []string{"block " + res.Name(), "check " + res.Name(), "exit " + res.Name()}, s.log())

	outer := runtime.EnterContext(ctx, "outer-at", "appB")
	e, b = res.EntryInSharedContextAt(new(runtime.SentinelEntry), outer, shared)
	require.Nil(t, b)
	name, origin := runtime.ContextName(e.Context())
	assert.Equal(t, "outer-at", name, "the outermost context names the tree")
	assert.Equal(t, "appB", origin)
	e.Exit()
}

// A resource that keeps a response-time histogram needs a larger entry:
// the runtime allocates it, and the caller's memory stays unused.
func TestEntryInSharedContextAtWithAHistogramUsesAnEntryOfItsOwn(t *testing.T) {
	clocktest.Install(t)
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	res.EnableRTHistogram()
	mem := new(runtime.SentinelEntry)
	e, b := res.EntryInSharedContextAt(mem, nil, runtime.NewSharedContext("web-shared-at-hist", ""))
	require.Nil(t, b)
	assert.NotSame(t, mem, e)
	assert.True(t, *mem == runtime.SentinelEntry{}, "untouched")
	e.Exit()
}

// refusingSlot refuses every call of the resources it binds with one
// shared BlockError, recording nothing.
type refusingSlot struct {
	resource string
	blocked  *runtime.BlockError
}

func (s *refusingSlot) Bind(r *runtime.Resource) runtime.Checker {
	if r.Name() != s.resource {
		return nil
	}
	return s
}

func (s *refusingSlot) Check(*runtime.Call) *runtime.BlockError { return s.blocked }
func (s *refusingSlot) Exit(*runtime.Call)                      {}
func (s *refusingSlot) NeedsArgs() bool                         { return false }

// Refusals in reused memory allocate nothing.
func TestEntryInSharedContextAtRefusalsAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	clocktest.Install(t)
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	blocked := runtime.NewSharedBlockError(runtime.BlockCustom, res.Name(), nil, "test")
	register(t, t.Name(), 100, &refusingSlot{resource: res.Name(), blocked: blocked})
	shared := runtime.NewSharedContext("web-shared-at-allocs", "")
	ctx := context.Background()
	mem := new(runtime.SentinelEntry)
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		*mem = runtime.SentinelEntry{}
		if _, b := res.EntryInSharedContextAt(mem, ctx, shared); b != blocked {
			t.Fatal("not refused")
		}
	}))
}
