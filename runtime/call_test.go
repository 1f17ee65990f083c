package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// funcSlot is a slot made of functions, bound to the resource it names.
type funcSlot struct {
	name  string
	check func(c *runtime.Call) *runtime.BlockError
	exit  func(c *runtime.Call)
}

func (s funcSlot) Bind(r *runtime.Resource) runtime.Checker {
	if r.Name() != s.name {
		return nil
	}
	return s
}

func (s funcSlot) Check(c *runtime.Call) *runtime.BlockError {
	if s.check != nil {
		return s.check(c)
	}
	return nil
}

func (s funcSlot) Exit(c *runtime.Call) {
	if s.exit != nil {
		s.exit(c)
	}
}

// Java's StatisticSlot counts a pass after fireEntry returns: a slot that
// waits moves the count, and what later slots read as now, to the end of
// the wait, while the response time counts from the entry.
func TestAWaitMovesTheCallsNowAndItsPass(t *testing.T) {
	clk := clocktest.Install(t)
	name := t.Name()
	t0 := clk.Millis()
	var later int64
	register(t, name+"/wait", 10, funcSlot{name: name, check: func(c *runtime.Call) *runtime.BlockError {
		require.NoError(t, c.Sleep(700*time.Millisecond))
		return nil
	}})
	register(t, name+"/read", 20, funcSlot{name: name, check: func(c *runtime.Call) *runtime.BlockError {
		later = c.NowMillis()
		assert.Equal(t, t0, c.StartMillis())
		return nil
	}})
	e, b := runtime.Entry(context.Background(), name)
	require.Nil(t, b)
	e.Exit()
	assert.Equal(t, t0+700, later)
	cn := runtime.LookupResource(name).ClusterNode()
	buckets := cn.SecondWindow().Buckets(clk.Millis())
	require.Len(t, buckets, 1, "nothing was counted at the entry's time")
	assert.Equal(t, t0+500, buckets[0].Start)
	assert.EqualValues(t, 1, buckets[0].Pass)
	assert.EqualValues(t, 700, buckets[0].RT)
}

// A done context ends a wait early with its error.
func TestSleepEndsWithTheCallersContext(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	var err error
	register(t, name, 10, funcSlot{name: name, check: func(c *runtime.Call) *runtime.BlockError {
		err = c.Sleep(time.Second)
		return nil
	}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e, b := runtime.Entry(ctx, name)
	require.Nil(t, b)
	e.Exit()
	assert.ErrorIs(t, err, context.Canceled)
}

// PassNow (Java's PriorityWaitException) admits the call without the later
// slots, which neither check it nor see its exit.
func TestPassNowSkipsTheLaterSlots(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	first, after := newTestSlot(name), newTestSlot(name)
	register(t, name+"1", 10, first)
	register(t, name+"2", 20, funcSlot{name: name, check: func(c *runtime.Call) *runtime.BlockError {
		return c.PassNow()
	}})
	register(t, name+"3", 30, after)
	e, b := runtime.Entry(context.Background(), name, runtime.WithPrioritized())
	require.Nil(t, b)
	e.Exit()
	assert.Equal(t, []string{"check " + name, "exit " + name}, first.log())
	assert.Empty(t, after.log())
}

func TestPrioritizedIsVisibleToSlots(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	var seen []bool
	register(t, name, 10, funcSlot{name: name, check: func(c *runtime.Call) *runtime.BlockError {
		seen = append(seen, c.Prioritized())
		return nil
	}})
	for _, opts := range [][]runtime.EntryOption{nil, {runtime.WithPrioritized()}} {
		e, b := runtime.Entry(context.Background(), name, opts...)
		require.Nil(t, b)
		e.Exit()
	}
	assert.Equal(t, []bool{false, true}, seen)
}

// currentExiter is exited on the rules in force at exit.
type currentExiter struct {
	funcSlot
}

func (currentExiter) ExitsOnCurrentRules() {}

// A checker marked ExitsOnCurrentRules is exited on the chain bound when
// the call exits (Java's DegradeSlot.exit looks its breakers up then);
// others on the chain that admitted the call.
func TestExitsOnCurrentRulesAfterARuleChange(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	var exits []string
	gen := 0
	current := slotFunc(func(r *runtime.Resource) runtime.Checker {
		if r.Name() != name {
			return nil
		}
		g := gen
		return currentExiter{funcSlot: funcSlot{name: name, exit: func(*runtime.Call) {
			exits = append(exits, "current@"+string(rune('0'+g)))
		}}}
	})
	bound := slotFunc(func(r *runtime.Resource) runtime.Checker {
		if r.Name() != name {
			return nil
		}
		g := gen
		return funcSlot{name: name, exit: func(*runtime.Call) {
			exits = append(exits, "bound@"+string(rune('0'+g)))
		}}
	})
	register(t, name+"/bound", 10, bound)
	register(t, name+"/current", 20, current)

	e, b := runtime.Entry(context.Background(), name)
	require.Nil(t, b)
	gen = 1
	runtime.RulesChanged()
	e.Exit()
	assert.Equal(t, []string{"bound@0", "current@1"}, exits)
}
