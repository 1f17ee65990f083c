package runtime_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

func TestCallsOutsideAnyContextUseTheDefaultContext(t *testing.T) {
	clocktest.Install(t)
	name, origin := runtime.ContextName(context.Background())
	assert.Equal(t, runtime.DefaultContextName, name)
	assert.Empty(t, origin)

	e, _ := runtime.Entry(context.Background(), t.Name())
	e.Exit()
	assert.NotNil(t, runtime.LookupResource(t.Name()).Node(runtime.DefaultContextName))
}

func TestEnterContextNamesTheEntranceAndOrigin(t *testing.T) {
	c := clocktest.Install(t)
	ctx := runtime.EnterContext(context.Background(), t.Name()+"-entrance", "appA")
	name, origin := runtime.ContextName(ctx)
	assert.Equal(t, t.Name()+"-entrance", name)
	assert.Equal(t, "appA", origin)

	e, _ := runtime.Entry(ctx, t.Name())
	e.Exit()
	r := runtime.LookupResource(t.Name())
	require.NotNil(t, r.Node(t.Name()+"-entrance"))
	assert.Nil(t, r.Node(runtime.DefaultContextName), "not called in the default context")
	on := r.ClusterNode().OriginNode("appA")
	require.NotNil(t, on)
	assert.EqualValues(t, 1, on.PassQPS(c.Millis()))
	assert.Equal(t, []string{"appA"}, r.ClusterNode().Origins())
}

func TestTheDefaultContextEnteredWithAnOriginSharesItsNodes(t *testing.T) {
	clocktest.Install(t)
	e, _ := runtime.Entry(context.Background(), t.Name())
	e.Exit()
	ctx := runtime.EnterContext(context.Background(), "", "appA")
	e, _ = runtime.Entry(ctx, t.Name())
	e.Exit()

	var seen int
	for _, en := range runtime.Tree().Children {
		for _, c := range en.Children {
			if c.Name == t.Name() {
				seen++
			}
		}
	}
	assert.Equal(t, 1, seen, "one node per resource and context name")
}

func TestEnterContextInsideAContextKeepsTheOuterOne(t *testing.T) {
	ctx := runtime.EnterContext(context.Background(), "outer-"+t.Name(), "a")
	inner := runtime.EnterContext(ctx, "inner-"+t.Name(), "b")
	name, origin := runtime.ContextName(inner)
	assert.Equal(t, "outer-"+t.Name(), name, "as Java's ContextUtil.enter, the existing context wins")
	assert.Equal(t, "a", origin)

	e, _ := runtime.Entry(context.Background(), t.Name())
	defer e.Exit()
	name, _ = runtime.ContextName(runtime.EnterContext(e.Context(), "late-"+t.Name(), ""))
	assert.Equal(t, runtime.DefaultContextName, name, "an open entry's context wins too")
}

func TestNestedEntriesBuildTheCallTree(t *testing.T) {
	c := clocktest.Install(t)
	entrance := t.Name() + "-entrance"
	ctx := runtime.EnterContext(context.Background(), entrance, "")
	parent, _ := runtime.Entry(ctx, t.Name()+"/parent")
	child, _ := runtime.Entry(parent.Context(), t.Name()+"/child")
	grandchild, _ := runtime.Entry(child.Context(), t.Name()+"/grandchild")
	name, _ := runtime.ContextName(grandchild.Context())
	assert.Equal(t, entrance, name, "nested calls stay in the parent's context")
	grandchild.Exit()
	child.Exit()
	parent.Exit()

	var en *runtime.TreeNode
	tree := runtime.Tree()
	for i := range tree.Children {
		if tree.Children[i].Name == entrance {
			en = &tree.Children[i]
		}
	}
	require.NotNil(t, en)
	require.Len(t, en.Children, 1)
	p := en.Children[0]
	assert.Equal(t, t.Name()+"/parent", p.Name)
	require.Len(t, p.Children, 1)
	assert.Equal(t, t.Name()+"/child", p.Children[0].Name)
	require.Len(t, p.Children[0].Children, 1)
	assert.Equal(t, t.Name()+"/grandchild", p.Children[0].Children[0].Name)
	assert.EqualValues(t, 1, en.Metrics.SuccessQPS, "the entrance sums its children")

	// Cluster nodes count every context; default nodes only their own.
	again, _ := runtime.Entry(context.Background(), t.Name()+"/child")
	again.Exit()
	r := runtime.LookupResource(t.Name() + "/child")
	assert.EqualValues(t, 2, r.ClusterNode().PassQPS(c.Millis()))
	assert.EqualValues(t, 1, r.Node(entrance).PassQPS(c.Millis()))
	assert.EqualValues(t, 1, r.Node(runtime.DefaultContextName).PassQPS(c.Millis()))
}

func TestEntryContextCarriesTheCallersValuesAndCancellation(t *testing.T) {
	type key struct{}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	e, _ := runtime.Entry(ctx, t.Name())
	defer e.Exit()
	assert.Equal(t, "v", e.Context().Value(key{}))
	cancel()
	assert.ErrorIs(t, e.Context().Err(), context.Canceled)
}

func TestExitingAParentFirstExitsItsOpenChildren(t *testing.T) {
	c := clocktest.Install(t)
	logs := logtest.Capture(t)
	parent, _ := runtime.Entry(context.Background(), t.Name()+"/parent")
	child, _ := runtime.Entry(parent.Context(), t.Name()+"/child")
	grandchild, _ := runtime.Entry(child.Context(), t.Name()+"/grandchild")

	parent.Exit() // out of order
	for _, n := range []string{"/parent", "/child", "/grandchild"} {
		cn := runtime.LookupResource(t.Name() + n).ClusterNode()
		assert.EqualValues(t, 0, cn.Threads(), n)
		assert.EqualValues(t, 1, cn.SuccessQPS(c.Millis()), n)
	}
	assert.Len(t, logs.Lines("exited before its nested entry"), 2)

	assert.NotPanics(t, func() {
		grandchild.Exit()
		child.Exit()
	}, "the late exits are harmless")
	assert.EqualValues(t, 0, runtime.LookupResource(t.Name()+"/child").ClusterNode().Threads())
}

// Java's CtEntry.exitForContext, on an entry that is not the context's
// current one, exits every entry from the current one up through all its
// ancestors and throws ErrorEntryFreeException. Here exiting a middle
// entry exits it and its nested entries only: its parent stays open for
// the caller whose deferred Exit is still to run.
func TestExitingAMiddleEntryLeavesItsParentOpen(t *testing.T) {
	c := clocktest.Install(t)
	logtest.Capture(t)
	root, _ := runtime.Entry(context.Background(), t.Name()+"/root")
	middle, _ := runtime.Entry(root.Context(), t.Name()+"/middle")
	leaf, _ := runtime.Entry(middle.Context(), t.Name()+"/leaf")
	_ = leaf

	middle.Exit() // out of order: leaf is still open
	threads := func(n string) int64 { return runtime.LookupResource(t.Name() + n).ClusterNode().Threads() }
	assert.EqualValues(t, 1, threads("/root"), "Java would have exited the root too")
	assert.EqualValues(t, 0, threads("/middle"))
	assert.EqualValues(t, 0, threads("/leaf"))
	root.Exit()
	assert.EqualValues(t, 0, threads("/root"))
	assert.EqualValues(t, 1, runtime.LookupResource(t.Name()+"/root").ClusterNode().SuccessQPS(c.Millis()))
}

func TestChildrenOfAnExitedParentStandAlone(t *testing.T) {
	clocktest.Install(t)
	parent, _ := runtime.Entry(context.Background(), t.Name()+"/parent")
	ctx := parent.Context()
	parent.Exit()
	child, b := runtime.Entry(ctx, t.Name()+"/child")
	require.Nil(t, b)
	child.Exit()
	assert.EqualValues(t, 0, runtime.LookupResource(t.Name()+"/child").ClusterNode().Threads())
}

// Children opened and exited on many goroutines while their parent exits
// leave no thread count behind and race with nothing.
func TestConcurrentChildrenAndParentExit(t *testing.T) {
	clocktest.Install(t)
	for range 20 {
		parent, _ := runtime.Entry(context.Background(), t.Name()+"/parent")
		ctx := parent.Context()
		done := make(chan struct{})
		for range 4 {
			go func() {
				defer func() { done <- struct{}{} }()
				child, b := runtime.Entry(ctx, t.Name()+"/child")
				if b == nil {
					child.Exit()
				}
			}()
		}
		parent.Exit()
		for range 4 {
			<-done
		}
	}
	assert.EqualValues(t, 0, runtime.LookupResource(t.Name()+"/child").ClusterNode().Threads())
	assert.EqualValues(t, 0, runtime.LookupResource(t.Name()+"/parent").ClusterNode().Threads())
}

func TestOriginsPerResourceAreCapped(t *testing.T) {
	clocktest.Install(t)
	logs := logtest.Capture(t)
	name := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano()) // fresh under -count
	for i := range runtime.MaxOriginsPerResource + 10 {
		ctx := runtime.EnterContext(context.Background(), "origins", fmt.Sprintf("o%d", i))
		e, b := runtime.Entry(ctx, name)
		require.Nil(t, b)
		e.Exit()
	}
	cn := runtime.LookupResource(name).ClusterNode()
	assert.Len(t, cn.Origins(), runtime.MaxOriginsPerResource+1, "origins come from callers: bounded, plus the overflow")
	assert.Nil(t, cn.OriginNode(fmt.Sprintf("o%d", runtime.MaxOriginsPerResource+5)))
	overflow := cn.OriginNode(runtime.OverflowOrigin)
	require.NotNil(t, overflow, "origins past the cap are counted together")
	assert.EqualValues(t, 10, overflow.PassQPS(runtime.NowMillis()))
	assert.EqualValues(t, 0, cn.Threads())
	assert.Len(t, logs.Lines("origin limit reached"), 1)
}

func TestLongOriginsAreCut(t *testing.T) {
	long := strings.Repeat("o", 256<<10)
	_, origin := runtime.ContextName(runtime.EnterContext(context.Background(), "long-origin", long))
	assert.Len(t, origin, runtime.MaxOriginBytes)
	assert.NotSame(t, unsafe.StringData(long), unsafe.StringData(origin), "a copy: the tables must not keep the whole header alive")
}

func TestTheOverflowContextNameIsTheOverflowEntrance(t *testing.T) {
	ctx := runtime.EnterContext(context.Background(), runtime.OverflowContextName, "")
	e, b := runtime.Entry(ctx, t.Name())
	require.Nil(t, b)
	e.Exit()
	n := 0
	for _, en := range runtime.Tree().Children {
		if en.Name == runtime.OverflowContextName {
			n++
		}
	}
	assert.Equal(t, 1, n, "a caller cannot make a second entrance of that name")
}

func TestDefaultContextNameEntersTheDefaultContext(t *testing.T) {
	// Java's ContextUtil.enter throws ContextNameDefineException for this
	// name; here it enters the default context, keeping the origin.
	name, origin := runtime.ContextName(runtime.EnterContext(context.Background(), runtime.DefaultContextName, "appA"))
	assert.Equal(t, runtime.DefaultContextName, name)
	assert.Equal(t, "appA", origin)
}

func TestEnterContextAllocatesOnce(t *testing.T) {
	runtime.EnterContext(context.Background(), "alloc-ctx", "")
	allocs := testing.AllocsPerRun(100, func() {
		_ = runtime.EnterContext(context.Background(), "alloc-ctx", "appA")
	})
	assert.EqualValues(t, 1, allocs)
}

func TestEntryInContextEntersTheContextAndTheEntryInOneAllocation(t *testing.T) {
	clocktest.Install(t)
	res := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	e, b := res.EntryInContext(context.Background(), "web-one-alloc", "appA")
	require.Nil(t, b)
	name, origin := runtime.ContextName(e.Context())
	assert.Equal(t, "web-one-alloc", name)
	assert.Equal(t, "appA", origin)
	e.Exit()
	assert.NotNil(t, res.Node("web-one-alloc"), "counted in the context entered")
	assert.NotNil(t, res.ClusterNode().OriginNode("appA"))

	outer := runtime.EnterContext(context.Background(), "outer", "appB")
	e, b = res.EntryInContext(outer, "inner", "appC")
	require.Nil(t, b)
	name, origin = runtime.ContextName(e.Context())
	assert.Equal(t, "outer", name, "as EnterContext: the outermost context names the tree")
	assert.Equal(t, "appB", origin)
	e.Exit()

	allocs := testing.AllocsPerRun(100, func() {
		e, _ := res.EntryInContext(context.Background(), "web-one-alloc", "appA")
		e.Exit()
	})
	assert.EqualValues(t, 1, allocs)
}

// A call counted on the overflow origin node stays there until it exits,
// even when a rule gives its origin a node of its own meanwhile: its
// thread count neither leaks on one node nor goes negative on the other.
func TestAnOriginReservedMidCallKeepsItsCountsWhereTheyBegan(t *testing.T) {
	clocktest.Install(t)
	name := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	res := runtime.Declare(runtime.ResourceSpec{Name: name})
	for i := range runtime.MaxOriginsPerResource {
		e, _ := res.Entry(runtime.EnterContext(context.Background(), "origins", fmt.Sprintf("o%d", i)))
		e.Exit()
	}
	e, b := res.Entry(runtime.EnterContext(context.Background(), "origins", "appX"))
	require.Nil(t, b)
	cn := res.ClusterNode()
	overflow := cn.OriginNode(runtime.OverflowOrigin)
	require.NotNil(t, overflow)
	assert.EqualValues(t, 1, overflow.Threads())
	mine := cn.ReserveOrigin("appX") // a rule naming appX is bound by another call
	e.Exit()
	assert.EqualValues(t, 0, overflow.Threads())
	assert.EqualValues(t, 0, mine.Threads())
}

// A resource called in one context counts its node there in its
// ClusterNode's window; when a second context calls it, the first node
// keeps what it counted and from then on each node counts its own calls.
func TestASecondContextSplitsTheFirstContextsNode(t *testing.T) {
	c := clocktest.Install(t)
	ctxA := runtime.EnterContext(context.Background(), t.Name()+"-A", "")
	ctxB := runtime.EnterContext(context.Background(), t.Name()+"-B", "")
	enter := func(ctx context.Context) *runtime.SentinelEntry {
		e, b := runtime.Entry(ctx, t.Name())
		require.Nil(t, b)
		return e
	}
	for range 3 {
		enter(ctxA).Exit()
	}
	open := enter(ctxA) // in flight across the split
	r := runtime.LookupResource(t.Name())
	a := r.Node(t.Name() + "-A")
	now := c.Millis()
	assert.EqualValues(t, 4, a.PassQPS(now))
	assert.EqualValues(t, 4, r.ClusterNode().PassQPS(now))

	for range 2 {
		enter(ctxB).Exit()
	}
	b := r.Node(t.Name() + "-B")
	assert.EqualValues(t, 4, a.PassQPS(now), "the first context's node keeps its count")
	assert.EqualValues(t, 2, b.PassQPS(now), "the second counts only its own calls")
	assert.EqualValues(t, 6, r.ClusterNode().PassQPS(now))
	assert.EqualValues(t, 1, a.Threads())

	open.Exit()
	enter(ctxA).Exit()
	assert.EqualValues(t, 5, a.PassQPS(now))
	assert.EqualValues(t, 5, a.SuccessQPS(now))
	assert.EqualValues(t, 2, b.SuccessQPS(now))
	assert.EqualValues(t, 7, r.ClusterNode().SuccessQPS(now))
	assert.EqualValues(t, 0, a.Threads(), "a call in flight across the split exits exactly")
	assert.EqualValues(t, 0, r.ClusterNode().Threads())

	c.Advance(1000 * time.Millisecond)
	assert.EqualValues(t, 5, a.PreviousPassQPS(c.Millis()))
	assert.EqualValues(t, 2, b.PreviousPassQPS(c.Millis()))
}

// attrRecorder is a slog.Handler that keeps the string attributes of what
// is logged as the handler receives them: what a bridge to OpenTelemetry's
// logs would export, where a string that is not UTF-8 fails the batch.
type attrRecorder struct {
	mu    sync.Mutex
	attrs map[string][]string
}

func (h *attrRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *attrRecorder) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *attrRecorder) WithGroup(string) slog.Handler            { return h }
func (h *attrRecorder) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	r.Attrs(func(a slog.Attr) bool {
		h.attrs[a.Key] = append(h.attrs[a.Key], a.Value.String())
		return true
	})
	return nil
}

// Resource names may come from callers (unmatched paths, outbound URLs):
// the warning about them hands the log handler valid UTF-8, control
// characters escaped, cut to a bound.
func TestTheNestingWarningEscapesACallersName(t *testing.T) {
	clocktest.Install(t)
	rec := &attrRecorder{attrs: map[string][]string{}}
	runtime.SetLogger(slog.New(rec))
	t.Cleanup(func() { runtime.SetLogger(slog.New(slog.DiscardHandler)) })
	parent, _ := runtime.Entry(context.Background(), "/p\xff\nlevel=ERROR")
	_, _ = runtime.Entry(parent.Context(), "/c"+strings.Repeat("x", 4000))
	parent.Exit()
	assert.Equal(t, []string{`/p\xff\nlevel=ERROR`}, rec.attrs["resource"])
	require.Len(t, rec.attrs["nested"], 1)
	assert.LessOrEqual(t, len(rec.attrs["nested"][0]), safetext.MaxName)
}
