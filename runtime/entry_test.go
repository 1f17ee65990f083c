package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

func TestEntryCountsPassCompletionAndThreads(t *testing.T) {
	c := clocktest.Install(t)
	name := t.Name()
	e, b := runtime.Entry(context.Background(), name)
	require.Nil(t, b)
	cn := runtime.LookupResource(name).ClusterNode()
	now := c.Millis()
	assert.EqualValues(t, 1, cn.Threads(), "a call in flight")
	assert.EqualValues(t, 1, cn.PassQPS(now))
	assert.EqualValues(t, 0, cn.SuccessQPS(now), "not completed yet")

	c.Advance(30 * time.Millisecond)
	e.Exit()
	now = c.Millis()
	assert.EqualValues(t, 0, cn.Threads())
	assert.EqualValues(t, 1, cn.SuccessQPS(now))
	assert.EqualValues(t, 30, cn.AvgRT(now))
	assert.EqualValues(t, 30, cn.MinRT(now))
	assert.EqualValues(t, 0, cn.ExceptionQPS(now))
}

func TestExitIsIdempotent(t *testing.T) {
	c := clocktest.Install(t)
	name := t.Name()
	e, _ := runtime.Entry(context.Background(), name)
	e.Exit()
	e.Exit()
	e.Exit(runtime.WithError(errors.New("late")))
	cn := runtime.LookupResource(name).ClusterNode()
	assert.EqualValues(t, 0, cn.Threads(), "a stray Exit never decrements twice")
	assert.EqualValues(t, 1, cn.SuccessQPS(c.Millis()))
	assert.EqualValues(t, 0, cn.ExceptionQPS(c.Millis()), "an error after exit is not recorded")
}

func TestNilEntryIsSafe(t *testing.T) {
	var e *runtime.SentinelEntry
	assert.NotPanics(t, func() {
		e.Exit()
		e.SetError(errors.New("x"))
		assert.NotNil(t, e.Context())
	})
}

func TestErrorsAreRecordedAsExceptions(t *testing.T) {
	tests := []struct {
		name       string
		run        func(e *runtime.SentinelEntry)
		exceptions float64
	}{
		{"SetError", func(e *runtime.SentinelEntry) { e.SetError(errors.New("boom")); e.Exit() }, 1},
		{"WithError", func(e *runtime.SentinelEntry) { e.Exit(runtime.WithError(errors.New("boom"))) }, 1},
		{"nil error", func(e *runtime.SentinelEntry) { e.SetError(nil); e.Exit() }, 0},
		{"a block error is never an exception", func(e *runtime.SentinelEntry) {
			e.SetError(fmt.Errorf("wrapped: %w", runtime.NewBlockError(runtime.BlockFlow, "x", nil, nil)))
			e.Exit()
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := clocktest.Install(t)
			e, b := runtime.Entry(context.Background(), t.Name())
			require.Nil(t, b)
			tt.run(e)
			cn := runtime.LookupResource(t.Name()).ClusterNode()
			assert.Equal(t, tt.exceptions, cn.ExceptionQPS(c.Millis()))
			assert.EqualValues(t, 1, cn.SuccessQPS(c.Millis()), "a failed call still completes")
		})
	}
}

func TestBatchCount(t *testing.T) {
	c := clocktest.Install(t)
	e, _ := runtime.Entry(context.Background(), t.Name(), runtime.WithBatchCount(5))
	e.Exit()
	cn := runtime.LookupResource(t.Name()).ClusterNode()
	assert.EqualValues(t, 5, cn.PassQPS(c.Millis()))
	assert.EqualValues(t, 5, cn.SuccessQPS(c.Millis()))

	e, _ = runtime.Entry(context.Background(), t.Name(), runtime.WithBatchCount(0))
	e.Exit()
	assert.EqualValues(t, 6, cn.PassQPS(c.Millis()), "a batch below 1 counts as 1")
}

func TestInboundCallsCountOnTheInboundNode(t *testing.T) {
	c := clocktest.Install(t)
	in := runtime.InboundNode()
	before := in.PassQPS(c.Millis())
	e, _ := runtime.Entry(context.Background(), t.Name()+"/in", runtime.WithTrafficType(runtime.Inbound))
	assert.EqualValues(t, 1, in.Threads())
	e.Exit()
	e, _ = runtime.Entry(context.Background(), t.Name()+"/out")
	e.Exit()
	assert.Equal(t, before+1, in.PassQPS(c.Millis()), "only the inbound call")
	assert.EqualValues(t, 0, in.Threads())
}

func TestDeclaredTrafficAndTypeApplyToEveryCall(t *testing.T) {
	clocktest.Install(t)
	r := runtime.Declare(runtime.ResourceSpec{Name: t.Name(), Traffic: runtime.Inbound, Type: runtime.Web, Params: []string{"id"}})
	assert.Same(t, r, runtime.LookupResource(t.Name()))
	assert.Equal(t, []string{"id"}, r.Spec().Params)

	s := newTestSlot(t.Name())
	var seen []string
	s.block = func(c *runtime.Call) bool {
		seen = append(seen, c.Traffic().String()+"/"+c.ResourceType().String())
		return false
	}
	register(t, t.Name(), 0, s)
	e, _ := r.Entry(context.Background())
	e.Exit()
	e, _ = runtime.Entry(context.Background(), t.Name(), runtime.WithTrafficType(runtime.Outbound), runtime.WithResourceType(runtime.RPC))
	e.Exit()
	assert.Equal(t, []string{"in/web", "out/rpc"}, seen)
}

func TestTheFirstCallClassifiesAnUndeclaredResource(t *testing.T) {
	clocktest.Install(t)
	e, b := runtime.Entry(context.Background(), t.Name(), runtime.WithTrafficType(runtime.Inbound), runtime.WithResourceType(runtime.RPC))
	require.Nil(t, b)
	e.Exit()
	r := runtime.LookupResource(t.Name())
	require.NotNil(t, r)
	assert.Equal(t, runtime.Inbound, r.Spec().Traffic, "what the dashboards show: Java's ClusterNode keeps the first call's type")
	assert.Equal(t, runtime.RPC, r.Spec().Type)

	// A later call of another type leaves the classification alone, and
	// a call without options is still outbound and common.
	s := newTestSlot(t.Name())
	var seen []string
	s.block = func(c *runtime.Call) bool {
		seen = append(seen, c.Traffic().String()+"/"+c.ResourceType().String())
		return false
	}
	register(t, t.Name(), 0, s)
	e, b = runtime.Entry(context.Background(), t.Name(), runtime.WithResourceType(runtime.Web))
	require.Nil(t, b)
	e.Exit()
	e, b = runtime.Entry(context.Background(), t.Name())
	require.Nil(t, b)
	e.Exit()
	assert.Equal(t, []string{"out/web", "out/common"}, seen)
	assert.Equal(t, runtime.RPC, r.Spec().Type)

	// A declaration says what it says, whatever the calls.
	runtime.Declare(runtime.ResourceSpec{Name: t.Name(), Type: runtime.Web})
	assert.Equal(t, runtime.Web, r.Spec().Type)
	assert.Equal(t, runtime.Outbound, r.Spec().Traffic)
}

func TestTheOverflowResourceIsListedOnlyOnceSomethingOverflowed(t *testing.T) {
	for _, r := range runtime.Resources() {
		assert.False(t, r.Overflow(), "nothing overflowed in this process: %s is no resource anybody called", r.Name())
	}
	assert.NotNil(t, runtime.LookupResource(runtime.OverflowResourceName), "it exists, ready to count")
}

func TestConcurrentCallsLeaveNoThreadsAndLoseNoCounts(t *testing.T) {
	c := clocktest.Install(t)
	r := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	const goroutines, calls = 8, 500
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for i := range calls {
				e, b := r.Entry(context.Background())
				if b != nil {
					t.Error(b)
					return
				}
				if i%3 == 0 {
					e.SetError(errors.New("x"))
				}
				e.Exit()
			}
		})
	}
	wg.Wait()
	cn := r.ClusterNode()
	now := c.Millis()
	assert.EqualValues(t, 0, cn.Threads())
	assert.EqualValues(t, goroutines*calls, cn.PassQPS(now))
	assert.EqualValues(t, goroutines*calls, cn.SuccessQPS(now))
	assert.EqualValues(t, goroutines*((calls+2)/3), cn.ExceptionQPS(now))
}

func TestBlockedCallIsCountedExitedAndReturnsNoEntry(t *testing.T) {
	c := clocktest.Install(t)
	name := t.Name()
	s := newTestSlot(name)
	s.block = func(*runtime.Call) bool { return true }
	register(t, name, runtime.OrderFlow, s)

	e, b := runtime.Entry(context.Background(), name)
	assert.Nil(t, e)
	require.NotNil(t, b)
	assert.ErrorIs(t, b, runtime.ErrBlocked)
	assert.Equal(t, runtime.BlockCustom, b.BlockType())
	assert.Equal(t, name, b.Resource())
	assert.Equal(t, "test", b.TriggeredValue())
	cn := runtime.LookupResource(name).ClusterNode()
	assert.EqualValues(t, 1, cn.BlockQPS(c.Millis()))
	assert.EqualValues(t, 0, cn.PassQPS(c.Millis()))
	assert.EqualValues(t, 0, cn.Threads())
}

func TestBlockErrorMessage(t *testing.T) {
	b := runtime.NewBlockError(runtime.BlockFlow, "getOrder", nil, nil)
	assert.Equal(t, `sentinel: "getOrder" blocked by flow rule`, b.Error())
	assert.Equal(t, `sentinel: "getOrder" blocked by flow rule: qps 20`, b.WithMessage("qps 20").Error())
	var target *runtime.BlockError
	assert.True(t, errors.As(fmt.Errorf("x: %w", b), &target))
}

func TestEnumStrings(t *testing.T) {
	assert.Equal(t, "in", runtime.Inbound.String())
	assert.Equal(t, "out", runtime.Outbound.String())
	assert.Equal(t, "gateway", runtime.APIGateway.String())
	assert.Equal(t, "paramflow", runtime.BlockParamFlow.String())
	rt, ok := runtime.ParseResourceType("mq")
	assert.True(t, ok)
	assert.Equal(t, runtime.MQ, rt)
	_, ok = runtime.ParseResourceType("sideways")
	assert.False(t, ok)
}

func TestEntryAndExitAllocateOnlyTheEntry(t *testing.T) {
	r := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	ctx := runtime.EnterContext(context.Background(), t.Name(), "appA")
	childName := t.Name() + "/child"
	warm := func() {
		e, _ := r.Entry(ctx)
		child, _ := runtime.Entry(e.Context(), childName)
		child.Exit()
		e.Exit()
	}
	warm()
	assert.EqualValues(t, 1, testing.AllocsPerRun(200, func() {
		e, _ := r.Entry(context.Background())
		e.Exit()
	}), "a top-level call")
	assert.EqualValues(t, 2, testing.AllocsPerRun(200, warm), "a call and a nested call in a named context with an origin: one entry each")
}
