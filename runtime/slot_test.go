package runtime_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

func TestChainHasJavasOrder(t *testing.T) {
	register(t, "ZSlot", runtime.OrderFlow+1, newTestSlot())
	register(t, "ASlot", runtime.OrderAuthority-1, newTestSlot())
	var names []string
	var last = -1 << 31
	for _, s := range runtime.Slots() {
		assert.GreaterOrEqual(t, s.Order, last, "slots are sorted by order")
		last = s.Order
		names = append(names, s.Name)
	}
	assert.Subset(t, names, []string{"NodeSelectorSlot", "ClusterBuilderSlot", "LogSlot", "StatisticSlot", "ASlot", "ZSlot"})
	assert.Equal(t, "NodeSelectorSlot", names[0])
}

func TestSlotsRunInOrderAndExitWhatTheyAdmitted(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	first, second, third := newTestSlot(name), newTestSlot(name), newTestSlot(name)
	register(t, name+"3", 30, third)
	register(t, name+"1", 10, first)
	register(t, name+"2", 20, second)

	e, b := runtime.Entry(context.Background(), name)
	require.Nil(t, b)
	e.Exit()
	for _, s := range []*testSlot{first, second, third} {
		assert.Equal(t, []string{"check " + name, "exit " + name}, s.log())
	}
}

func TestALaterBlockExitsTheSlotsThatAdmittedTheCall(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	first, blocker, after := newTestSlot(name), newTestSlot(name), newTestSlot(name)
	blocker.block = func(*runtime.Call) bool { return true }
	register(t, name+"1", 10, first)
	register(t, name+"2", 20, blocker)
	register(t, name+"3", 30, after)

	_, b := runtime.Entry(context.Background(), name)
	require.NotNil(t, b)
	assert.Equal(t, []string{"check " + name, "exit-blocked " + name}, first.log(),
		"a slot before the blocker releases what it took, seeing the block")
	assert.Equal(t, []string{"block " + name}, blocker.log(), "the blocker is not exited")
	assert.Empty(t, after.log(), "slots after the blocker never run")
}

// skippingSlot is a testSlot whose Exit has nothing to do for the calls
// it admits (runtime.ExitSkipper).
type skippingSlot struct{ *testSlot }

func (s skippingSlot) Bind(r *runtime.Resource) runtime.Checker {
	if s.testSlot.Bind(r) == nil {
		return nil
	}
	return s
}

func (skippingSlot) SkipsExit() bool { return true }

func TestAnExitSkipperIsExitedOnlyWhenALaterSlotRefuses(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	skipping, blocker := skippingSlot{newTestSlot(name)}, newTestSlot(name)
	refuse := false
	blocker.block = func(*runtime.Call) bool { return refuse }
	register(t, name+"1", 10, skipping)
	register(t, name+"2", 20, blocker)

	e, b := runtime.Entry(context.Background(), name)
	require.Nil(t, b)
	e.Exit()
	assert.Equal(t, []string{"check " + name}, skipping.log(), "an admitted call skips its Exit")
	assert.Equal(t, []string{"check " + name, "exit " + name}, blocker.log(), "other slots are exited")

	refuse = true
	_, b = runtime.Entry(context.Background(), name)
	require.NotNil(t, b)
	assert.Equal(t, []string{"check " + name, "check " + name, "exit-blocked " + name}, skipping.log(),
		"a call a later slot refuses is still exited")
}

func TestSlotsBindOnlyWhereTheyApply(t *testing.T) {
	clocktest.Install(t)
	s := newTestSlot(t.Name() + "/yes")
	register(t, t.Name(), 0, s)
	for _, n := range []string{"/yes", "/no"} {
		e, _ := runtime.Entry(context.Background(), t.Name()+n)
		e.Exit()
	}
	assert.Equal(t, []string{"check " + t.Name() + "/yes", "exit " + t.Name() + "/yes"}, s.log())
}

func TestRegisteringAfterFirstUseRebindsTheChain(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	e, _ := runtime.Entry(context.Background(), name)
	e.Exit()

	s := newTestSlot(name)
	s.block = func(*runtime.Call) bool { return true }
	runtime.RegisterSlot(name, 0, s)
	_, b := runtime.Entry(context.Background(), name)
	assert.NotNil(t, b, "the new slot applies at once")

	runtime.UnregisterSlot(name)
	e, b = runtime.Entry(context.Background(), name)
	assert.Nil(t, b, "and stops applying once removed")
	e.Exit()
}

func TestRulesChangedRebindsTheChain(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	var mu sync.Mutex
	applies := false
	slot := slotFunc(func(r *runtime.Resource) runtime.Checker {
		mu.Lock()
		defer mu.Unlock()
		if r.Name() == name && applies {
			s := newTestSlot(name)
			s.block = func(*runtime.Call) bool { return true }
			return s
		}
		return nil
	})
	register(t, name, 0, slot)
	e, b := runtime.Entry(context.Background(), name)
	require.Nil(t, b)
	e.Exit()

	mu.Lock()
	applies = true
	mu.Unlock()
	runtime.RulesChanged()
	_, b = runtime.Entry(context.Background(), name)
	assert.NotNil(t, b)
}

func TestExitUsesTheChainTheCallEnteredWith(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	s := newTestSlot(name)
	register(t, name, 0, s)
	e, _ := runtime.Entry(context.Background(), name)
	runtime.UnregisterSlot(name)
	e.Exit()
	assert.Equal(t, []string{"check " + name, "exit " + name}, s.log(),
		"a slot removed mid-call still releases the call it admitted")
}

func TestNeedsArgsFollowsTheBoundSlots(t *testing.T) {
	clocktest.Install(t)
	r := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	assert.False(t, r.NeedsArgs())
	s := newTestSlot(t.Name())
	s.readsArgs = true
	var got []any
	s.block = func(c *runtime.Call) bool { got = c.Args(); return false }
	register(t, t.Name(), 0, s)
	assert.True(t, r.NeedsArgs())
	e, _ := r.Entry(context.Background(), runtime.WithArgs(int64(7), "x"))
	e.Exit()
	assert.Equal(t, []any{int64(7), "x"}, got)
}

// Registering slots while calls run is free of data races.
func TestRegisterSlotWhileCallsRun(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	r := runtime.Declare(runtime.ResourceSpec{Name: name})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				e, b := runtime.Entry(context.Background(), name)
				if b == nil {
					e.Exit()
				}
			}
		})
	}
	for i := range 50 {
		slotName := fmt.Sprintf("%s-%d", name, i%5)
		runtime.RegisterSlot(slotName, i, newTestSlot(name))
		if i%2 == 0 {
			runtime.UnregisterSlot(slotName)
		}
	}
	close(stop)
	wg.Wait()
	for i := range 5 {
		runtime.UnregisterSlot(fmt.Sprintf("%s-%d", name, i))
	}
	assert.EqualValues(t, 0, r.ClusterNode().Threads())
}

type slotFunc func(r *runtime.Resource) runtime.Checker

func (f slotFunc) Bind(r *runtime.Resource) runtime.Checker { return f(r) }
