package flow_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Prioritized calls follow Java's DefaultController.canPass(node, acquire,
// prioritized=true) with StatisticNode.tryOccupyNext: over the count, a
// prioritized QPS call looks for a window to come, within the occupy
// timeout (500 ms), whose passes plus everything borrowed plus its own stay
// within the count once the buckets before it drop out; it counts itself
// there (addWaitingRequest), sleeps until then and passes.

func prio(ctx context.Context, resource string, opts ...runtime.EntryOption) bool {
	e, b := runtime.Entry(ctx, resource, append(opts, runtime.WithPrioritized())...)
	if b != nil {
		return false
	}
	e.Exit()
	return true
}

// loadFrozen loads rules under a clock whose Sleep records the wait without
// passing time, so that several calls borrow at one instant.
func loadFrozen(t *testing.T, rules ...flow.Rule) *frozenClock {
	t.Helper()
	clk := newFrozenClock()
	t.Cleanup(runtime.SetClock(clk))
	require.NoError(t, flow.LoadRules(rules))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	return clk
}

// Ten passes at 100 ms into a second. At 600 ms the window [0, 1000) is
// full; tryOccupyNext finds that at 1000 ms, when the bucket [0, 500)
// drops out, 10 + 0 + 1 - 10 <= 10: the call waits 400 ms and passes
// there, where its pass is counted.
func TestPrioritizedBorrowsFromTheNextWindow(t *testing.T) {
	clk := load(t, qps("prio-next", 10))
	ctx := context.Background()
	t0 := clk.Millis()
	clk.Advance(100 * time.Millisecond)
	require.Equal(t, 10, calls(ctx, "prio-next", 10))
	assert.False(t, prio(ctx, "prio-next"), "at 100 ms the next window still holds the 10: 11 > 10; the one after is 900 ms away")

	clk.Advance(500 * time.Millisecond)
	assert.False(t, call(ctx, "prio-next"), "an ordinary call is refused")
	require.True(t, prio(ctx, "prio-next"))
	assert.Equal(t, t0+1000, clk.Millis(), "it waited 400 ms")

	node := runtime.LookupResource("prio-next").ClusterNode()
	assert.Equal(t, 1.0, node.PassQPS(clk.Millis()), "counted in the window it borrowed from")
	assert.Equal(t, 9, calls(ctx, "prio-next", 10), "which it shares with ordinary calls")
}

// What was borrowed counts against later borrowers (currentBorrow): of
// prioritized calls at one instant, 10 borrow (10 + b + 1 - 10 <= 10 for
// b = 0..9), the 11th finds currentBorrow >= count. The window they
// borrowed from is full when its time comes.
func TestPrioritizedBorrowedPassesCountForEveryone(t *testing.T) {
	clk := loadFrozen(t, qps("prio-many", 10))
	ctx := context.Background()
	clk.Advance(100 * time.Millisecond)
	require.Equal(t, 10, calls(ctx, "prio-many", 10))
	clk.Advance(500 * time.Millisecond)
	admitted := 0
	for range 11 {
		if prio(ctx, "prio-many") {
			admitted++
			assert.Equal(t, 400*time.Millisecond, clk.lastSleep())
		}
	}
	assert.Equal(t, 10, admitted)

	clk.Advance(400 * time.Millisecond) // the borrowed window begins
	node := runtime.LookupResource("prio-many").ClusterNode()
	assert.Equal(t, 10.0, node.PassQPS(clk.Millis()))
	assert.Equal(t, 0, calls(ctx, "prio-many", 3), "10 borrowed passes fill it")
	clk.Advance(500 * time.Millisecond)
	assert.Equal(t, 0, calls(ctx, "prio-many", 3), "they stay in the window for its second")
	clk.Advance(500 * time.Millisecond)
	assert.Equal(t, 10, calls(ctx, "prio-many", 11))
}

// Java's ordinary check reads only the current window, so an ordinary call
// may take room a prioritized call already borrowed, and the window to come
// then exceeds the count. Here an ordinary call never pushes any window,
// borrowed passes included, past the count.
func TestPrioritizedKeepsOrdinaryCallsFromOvershooting(t *testing.T) {
	clk := loadFrozen(t, qps("prio-overshoot", 10))
	ctx := context.Background()
	clk.Advance(100 * time.Millisecond)
	require.Equal(t, 2, calls(ctx, "prio-overshoot", 2))
	clk.Advance(500 * time.Millisecond)
	require.Equal(t, 7, calls(ctx, "prio-overshoot", 7))
	// 9 + 3 > 10; at 1000 ms: 9 + 3 - 2 <= 10.
	require.True(t, prio(ctx, "prio-overshoot", runtime.WithBatchCount(3)))
	assert.False(t, call(ctx, "prio-overshoot"), "Java admits it (2 + 7 + 1 <= 10) and [500, 1500) then holds 8 + 3")

	clk.Advance(400 * time.Millisecond)
	assert.Equal(t, 0, calls(ctx, "prio-overshoot", 2), "[500, 1500) holds 7 + 3")
	clk.Advance(500 * time.Millisecond)
	assert.Equal(t, 7, calls(ctx, "prio-overshoot", 10), "[1000, 2000) holds 3")
}

// OccupyTimeoutProperty: a call may borrow only from a window it reaches
// in less than the timeout; at most the 1 s interval.
func TestPrioritizedOccupyTimeout(t *testing.T) {
	clk := load(t, qps("prio-timeout", 10))
	ctx := context.Background()
	require.Equal(t, flow.DefaultOccupyTimeout, flow.OccupyTimeout())
	require.Error(t, flow.SetOccupyTimeout(-time.Millisecond))
	require.Error(t, flow.SetOccupyTimeout(1001*time.Millisecond))
	require.Equal(t, flow.DefaultOccupyTimeout, flow.OccupyTimeout(), "refused values leave it")
	require.NoError(t, flow.SetOccupyTimeout(time.Second))
	t.Cleanup(func() { require.NoError(t, flow.SetOccupyTimeout(flow.DefaultOccupyTimeout)) })

	t0 := clk.Millis()
	clk.Advance(100 * time.Millisecond)
	require.Equal(t, 10, calls(ctx, "prio-timeout", 10))
	require.True(t, prio(ctx, "prio-timeout"), "the window at 1000 ms, 900 ms away, has room: 10 + 1 - 10")
	assert.Equal(t, t0+1000, clk.Millis())

	require.NoError(t, flow.SetOccupyTimeout(0))
	assert.Equal(t, 9, calls(ctx, "prio-timeout", 10))
	assert.False(t, prio(ctx, "prio-timeout"), "a timeout of 0 borrows nothing")
}

// A chain rule reads the call's node in its context; borrowing reads the
// same node, and what the rule's calls borrowed.
func TestPrioritizedOnAChainRule(t *testing.T) {
	clk := load(t, flow.Rule{Resource: "prio-chain", Grade: flow.GradeQPS, Count: 2, Strategy: flow.Chain, RefResource: "prio-entrance"})
	ctx := runtime.EnterContext(context.Background(), "prio-entrance", "")
	t0 := clk.Millis()
	clk.Advance(100 * time.Millisecond)
	require.Equal(t, 2, calls(ctx, "prio-chain", 3))
	clk.Advance(500 * time.Millisecond)
	require.True(t, prio(ctx, "prio-chain"), "2 + 0 + 1 - 2 <= 2 at 1000 ms")
	assert.Equal(t, t0+1000, clk.Millis())
	assert.Equal(t, 1, calls(ctx, "prio-chain", 3), "the borrowed pass counts in [500, 1500)")
}

// Thread-grade rules never borrow (only DefaultController's QPS grade does).
func TestPrioritizedThreadGradeDoesNotBorrow(t *testing.T) {
	load(t, flow.Rule{Resource: "prio-threads", Grade: flow.GradeThread, Count: 1})
	ctx := context.Background()
	e, b := runtime.Entry(ctx, "prio-threads")
	require.Nil(t, b)
	assert.False(t, prio(ctx, "prio-threads"))
	e.Exit()
}

// A caller that gives up while waiting is refused and gives the borrowed
// pass back.
func TestPrioritizedCancelledWaitGivesTheBorrowedPassBack(t *testing.T) {
	clk := loadFrozen(t, qps("prio-cancel", 10))
	clk.Advance(100 * time.Millisecond)
	require.Equal(t, 10, calls(context.Background(), "prio-cancel", 10))
	clk.Advance(500 * time.Millisecond)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	_, b := runtime.Entry(done, "prio-cancel", runtime.WithPrioritized())
	require.NotNil(t, b)
	assert.Equal(t, runtime.BlockFlow, b.BlockType())
	clk.Advance(400 * time.Millisecond)
	assert.Equal(t, 10, calls(context.Background(), "prio-cancel", 11), "nothing stays borrowed")
}

// refuseAll is a slot after the flow slot that refuses every call.
type refuseAll struct{}

func (refuseAll) Bind(*runtime.Resource) runtime.Checker { return refuseAll{} }
func (refuseAll) Check(c *runtime.Call) *runtime.BlockError {
	return c.Block(runtime.BlockCustom, nil, nil)
}
func (refuseAll) Exit(*runtime.Call) {}

// Java's DefaultController throws PriorityWaitException once the call has
// waited; StatisticSlot catches it and the slots after the flow slot never
// see the call.
func TestPrioritizedPassSkipsTheLaterSlots(t *testing.T) {
	clk := load(t, qps("prio-skip", 1))
	runtime.RegisterSlot("prio-test-refuse", runtime.OrderDegrade, refuseAll{})
	t.Cleanup(func() { runtime.UnregisterSlot("prio-test-refuse") })
	ctx := context.Background()
	clk.Advance(100 * time.Millisecond)
	_, b := runtime.Entry(ctx, "prio-skip")
	require.NotNil(t, b)
	assert.Equal(t, runtime.BlockCustom, b.BlockType(), "an ordinary call meets the later slot")
	// That refusal gave the gate's pass back; use it up.
	_, b = runtime.Entry(ctx, "prio-skip", runtime.WithPrioritized())
	require.NotNil(t, b, "a prioritized call that needs no borrowing is checked by every slot")
	runtime.UnregisterSlot("prio-test-refuse")
	require.True(t, call(ctx, "prio-skip"))
	runtime.RegisterSlot("prio-test-refuse", runtime.OrderDegrade, refuseAll{})
	clk.Advance(500 * time.Millisecond)
	require.True(t, prio(ctx, "prio-skip"), "borrowed from [500, 1500): passes without the later slot")
}

// Ordinary and prioritized callers racing at one instant never push the
// current window or the borrowed one past the count.
func TestPrioritizedConcurrentCallersNeverOvershoot(t *testing.T) {
	clk := loadFrozen(t, qps("prio-race", 20))
	ctx := context.Background()
	clk.Advance(100 * time.Millisecond)
	require.Equal(t, 5, calls(ctx, "prio-race", 5))
	clk.Advance(500 * time.Millisecond)

	var start, done sync.WaitGroup
	var ordinary, prioritized atomic.Int64
	start.Add(1)
	for i := range 16 {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			for range 10 {
				if i%2 == 0 {
					if call(ctx, "prio-race") {
						ordinary.Add(1)
					}
				} else if prio(ctx, "prio-race") {
					prioritized.Add(1)
				}
			}
		}()
	}
	start.Done()
	done.Wait()
	// [0, 1000) holds the 5 and what passed at 600 ms; [500, 1500) what
	// passed at 600 ms and what was borrowed for 1000 ms.
	now := clk.Millis()
	node := runtime.LookupResource("prio-race").ClusterNode()
	assert.LessOrEqual(t, node.PassQPS(now), 20.0)
	clk.Advance(400 * time.Millisecond)
	assert.LessOrEqual(t, node.PassQPS(clk.Millis()), 20.0)
	assert.Equal(t, float64(ordinary.Load()+prioritized.Load()), node.PassQPS(clk.Millis()))
	t.Logf("ordinary %d, prioritized %d", ordinary.Load(), prioritized.Load())
}

// A cluster rule with no ClusterChecker set is checked locally, as Java's
// fallbackToLocalOrPass, and lends as a local rule does.
func TestPrioritizedClusterRuleCheckedLocallyBorrows(t *testing.T) {
	clk := load(t, flow.Rule{Resource: "prio-cluster", Grade: flow.GradeQPS, Count: 2, ClusterMode: true,
		ClusterConfig: &flow.ClusterConfig{FlowID: 7, FallbackToLocalWhenFail: true}})
	ctx := context.Background()
	t0 := clk.Millis()
	clk.Advance(100 * time.Millisecond)
	require.Equal(t, 2, calls(ctx, "prio-cluster", 3))
	clk.Advance(500 * time.Millisecond)
	require.True(t, prio(ctx, "prio-cluster"))
	assert.Equal(t, t0+1000, clk.Millis())
}
