package flow_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blockCounts reads a resource's blocks and would-be blocks by flow rules.
func blockCounts(name string) (blocks, wouldBlocks int64) {
	r := runtime.LookupResource(name)
	if r == nil {
		return 0, 0
	}
	return r.BlockCount(runtime.BlockFlow), r.DryRunBlockCount(runtime.BlockFlow)
}

// A dry-run QPS rule admits every call and counts, window after window,
// exactly the blocks the same rule makes enforcing: its gate counts only
// the passes it would have granted, not the calls it let through.
func TestDryRunQPSCountsTheEnforcingRulesBlocks(t *testing.T) {
	clk := load(t,
		flow.Rule{Resource: "dry-qps-enf", Grade: flow.GradeQPS, Count: 5},
		flow.Rule{Resource: "dry-qps-dry", Grade: flow.GradeQPS, Count: 5, DryRun: true})
	ctx := context.Background()
	// Calls per 250 ms step: bursts, gaps and window edges, so that the
	// sliding 2 x 500 ms window would diverge had the dry run counted the
	// calls it let through.
	steps := []int{3, 4, 0, 7, 9, 0, 0, 2, 6, 6, 1, 0, 12, 3}
	var enforcedBlocks int
	for i, n := range steps {
		admitted := calls(ctx, "dry-qps-enf", n)
		enforcedBlocks += n - admitted
		require.Equal(t, n, calls(ctx, "dry-qps-dry", n), "step %d: the dry run admits every call", i)
		_, would := blockCounts("dry-qps-dry")
		require.EqualValues(t, enforcedBlocks, would, "step %d", i)
		clk.Advance(250 * time.Millisecond)
	}
	assert.Positive(t, enforcedBlocks)
	blocks, _ := blockCounts("dry-qps-dry")
	assert.Zero(t, blocks, "would-be blocks are no blocks")
	_, would := blockCounts("dry-qps-enf")
	assert.Zero(t, would)
	dry := runtime.LookupResource("dry-qps-dry").ClusterNode()
	assert.EqualValues(t, 0, dry.BlockQPS(runtime.NowMillis()), "the dry resource's statistics count no block")
}

// A dry-run thread rule holds only the calls it admitted: a call it
// refused runs, yet neither counts against later calls nor gives back a
// token at its exit.
func TestDryRunThreadGateCountsTheEnforcingRulesBlocks(t *testing.T) {
	load(t,
		flow.Rule{Resource: "dry-thr-enf", Grade: flow.GradeThread, Count: 2},
		flow.Rule{Resource: "dry-thr-dry", Grade: flow.GradeThread, Count: 2, DryRun: true})
	ctx := context.Background()
	type held = map[string]*runtime.SentinelEntry
	enf, dry := held{}, held{}
	var enforcedBlocks int64
	open := func(id string) {
		e, b := runtime.Entry(ctx, "dry-thr-enf")
		if b != nil {
			enforcedBlocks++
		} else {
			enf[id] = e
		}
		d, b := runtime.Entry(ctx, "dry-thr-dry")
		require.Nil(t, b, "the dry run admits %s", id)
		dry[id] = d
	}
	exit := func(id string) {
		enf[id].Exit() // nil when blocked: a no-op
		dry[id].Exit()
	}
	check := func(step string) {
		_, would := blockCounts("dry-thr-dry")
		require.Equal(t, enforcedBlocks, would, step)
	}
	open("a")
	open("b")
	open("c") // refused: 2 in flight
	check("c")
	exit("a")
	open("d") // 1 in flight enforcing; the dry run has b, c and d running but holds b only
	check("d")
	open("e") // refused
	exit("c") // the dry run's c held nothing: exiting it frees nothing
	open("f") // still refused: b and d
	check("f")
	exit("b")
	exit("d")
	exit("e")
	exit("f")
	open("g")
	open("h")
	open("i") // refused
	check("i")
	for _, id := range []string{"g", "h", "i"} {
		exit(id)
	}
	assert.EqualValues(t, 4, enforcedBlocks, "c, e, f and i")
	assert.EqualValues(t, 0, runtime.LookupResource("dry-thr-dry").ClusterNode().Threads())
}

// refuser is a slot after the flow slot that refuses the calls of one
// origin, so that the flow slot sees Exit for calls a later slot blocked.
type refuser struct{ origin string }

func (r refuser) Bind(*runtime.Resource) runtime.Checker { return r }
func (r refuser) Check(c *runtime.Call) *runtime.BlockError {
	if c.Origin() == r.origin {
		return c.Block(runtime.BlockCustom, nil, nil)
	}
	return nil
}
func (refuser) Exit(*runtime.Call) {}

func withRefuser(t *testing.T, origin string) {
	runtime.RegisterSlot("dry-run-test-refuser", runtime.OrderFlow+1, refuser{origin})
	t.Cleanup(func() { runtime.UnregisterSlot("dry-run-test-refuser") })
}

// A call a later slot blocks gets its QPS pass back from a dry-run gate
// that admitted it, and nothing from one that refused it.
func TestDryRunQPSGateUndoesOnlyWhatItGranted(t *testing.T) {
	load(t, flow.Rule{Resource: "dry-undo", Grade: flow.GradeQPS, Count: 2, DryRun: true})
	withRefuser(t, "refused")
	ok, refused := from("fine"), from("refused")
	_, would := blockCounts("dry-undo")

	// Admitted by the gate, then blocked later: the pass is given back.
	assert.False(t, call(refused, "dry-undo"))
	assert.True(t, call(ok, "dry-undo"))
	assert.True(t, call(ok, "dry-undo"), "the blocked call's pass was given back")
	_, n := blockCounts("dry-undo")
	assert.Equal(t, would, n, "no would-be block yet")

	// Refused by the gate (counted), then blocked later: nothing to give
	// back, so the window stays full.
	assert.False(t, call(refused, "dry-undo"))
	_, n = blockCounts("dry-undo")
	assert.Equal(t, would+1, n)
	assert.True(t, call(ok, "dry-undo"))
	_, n = blockCounts("dry-undo")
	assert.Equal(t, would+2, n, "the window is still full: the refused call took no pass to give back")
}

// Switching dryRun keeps the rule's state: a throttling queue keeps the
// turns it gave, a warm-up rule stays warm.
func TestDryRunToggleKeepsThrottlingQueue(t *testing.T) {
	clk := newFrozenClock()
	defer runtime.SetClock(clk)()
	rule := flow.Rule{Resource: "dry-queue", Grade: flow.GradeQPS, Count: 10,
		ControlBehavior: flow.Throttling, MaxQueueingTimeMs: 500, DryRun: true}
	require.NoError(t, flow.LoadRules([]flow.Rule{rule}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	ctx := context.Background()
	_, before := blockCounts("dry-queue")
	for i := range 8 {
		require.True(t, call(ctx, "dry-queue"), "call %d", i)
		assert.Equal(t, time.Duration(0), clk.lastSleep(), "a dry run never makes a call wait")
	}
	_, after := blockCounts("dry-queue")
	assert.Equal(t, before+2, after, "calls 7 and 8 would wait 600 and 700 ms")

	rule.DryRun = false
	require.NoError(t, flow.LoadRules([]flow.Rule{rule}))
	assert.False(t, call(ctx, "dry-queue"), "the six turns taken in dry run are still taken")
	clk.Advance(100 * time.Millisecond)
	assert.True(t, call(ctx, "dry-queue"))
	assert.Equal(t, 500*time.Millisecond, clk.lastSleep())
}

func TestDryRunToggleKeepsWarmUpWarm(t *testing.T) {
	warm := flow.Rule{Resource: "dry-warm", Grade: flow.GradeQPS, Count: 30,
		ControlBehavior: flow.WarmUp, WarmUpPeriodSec: 5, DryRun: true}
	cold := warm
	cold.Resource, cold.DryRun = "dry-cold", false
	clk := load(t, warm, cold)
	ctx := context.Background()
	// Thirty seconds of full traffic on the dry-run rule warm it up.
	for range 30 {
		require.Equal(t, 30, calls(ctx, "dry-warm", 30))
		clk.Advance(time.Second)
	}
	warm.DryRun = false
	require.NoError(t, flow.LoadRules([]flow.Rule{warm, cold}))
	warmAdmitted := calls(ctx, "dry-warm", 40)
	coldAdmitted := calls(ctx, "dry-cold", 40)
	assert.Equal(t, 30, warmAdmitted, "warm: the full count")
	assert.Equal(t, 10, coldAdmitted, "cold: count / cold factor")
}

// Switching a thread rule between dry run and enforcing while calls are
// in flight gives back exactly what each call took.
func TestDryRunToggleThreadGateInFlight(t *testing.T) {
	rule := flow.Rule{Resource: "dry-thr-toggle", Grade: flow.GradeThread, Count: 1, DryRun: true}
	load(t, rule)
	ctx := context.Background()
	a, b := runtime.Entry(ctx, "dry-thr-toggle")
	require.Nil(t, b)
	c, b := runtime.Entry(ctx, "dry-thr-toggle") // would be refused: holds nothing
	require.Nil(t, b)
	rule.DryRun = false
	require.NoError(t, flow.LoadRules([]flow.Rule{rule}))
	_, b = runtime.Entry(ctx, "dry-thr-toggle")
	require.NotNil(t, b, "a still holds the gate")
	c.Exit()
	a.Exit()
	d, b := runtime.Entry(ctx, "dry-thr-toggle")
	require.Nil(t, b, "both exits gave back what they took, no more")
	_, b = runtime.Entry(ctx, "dry-thr-toggle")
	require.NotNil(t, b)
	d.Exit()
}

// Concurrent calls through dry-run thread and QPS gates, some blocked by a
// later slot, leave no thread token behind and none owed.
func TestDryRunGatesConcurrentNoLeak(t *testing.T) {
	load(t,
		flow.Rule{Resource: "dry-conc", Grade: flow.GradeThread, Count: 3, DryRun: true},
		flow.Rule{Resource: "dry-conc", Grade: flow.GradeQPS, Count: 50, DryRun: true})
	withRefuser(t, "refused")
	ok, refused := from("fine"), from("refused")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			ctx := ok
			if g%3 == 0 {
				ctx = refused
			}
			for range 300 {
				if e, b := runtime.Entry(ctx, "dry-conc"); b == nil {
					e.Exit()
				}
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, 0, runtime.LookupResource("dry-conc").ClusterNode().Threads())

	// The thread gate is back at zero: three held calls fit, a fourth
	// would be refused.
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "dry-conc", Grade: flow.GradeThread, Count: 3, DryRun: true}}))
	_, before := blockCounts("dry-conc")
	var held []*runtime.SentinelEntry
	for range 3 {
		e, b := runtime.Entry(ok, "dry-conc")
		require.Nil(t, b)
		held = append(held, e)
	}
	_, n := blockCounts("dry-conc")
	assert.Equal(t, before, n, "no token leaked: three calls fit")
	e, b := runtime.Entry(ok, "dry-conc")
	require.Nil(t, b)
	_, n = blockCounts("dry-conc")
	assert.Equal(t, before+1, n, "no token was given back twice: the fourth would be refused")
	e.Exit()
	for _, e := range held {
		e.Exit()
	}
}
