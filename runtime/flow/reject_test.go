package flow_test

import (
	"context"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The design's example: the two live buckets hold 12 and 8 passes against
// a 20 QPS rule; passQps is 20 and the next call is refused (20 + 1 > 20);
// once the bucket of 12 leaves the window, 500 ms later, calls pass again.
func TestRejectDesignExampleTwelvePlusEight(t *testing.T) {
	c := load(t, qps("design", 20))
	ctx := context.Background()
	require.Equal(t, 12, calls(ctx, "design", 12))
	c.Advance(500 * time.Millisecond)
	require.Equal(t, 8, calls(ctx, "design", 8))

	node := runtime.LookupResource("design").ClusterNode()
	assert.Equal(t, 20.0, node.PassQPS(runtime.NowMillis()))
	e, b := runtime.Entry(ctx, "design")
	require.Nil(t, e)
	require.NotNil(t, b)
	assert.Equal(t, runtime.BlockFlow, b.BlockType())
	assert.Equal(t, "design", b.Rule().(*flow.Rule).Resource)
	assert.Equal(t, "default", b.TriggeredValue())

	c.Advance(499 * time.Millisecond)
	assert.False(t, call(ctx, "design"), "the bucket of 12 is still in the window")
	c.Advance(time.Millisecond)
	assert.Equal(t, 8.0, node.PassQPS(runtime.NowMillis()))
	assert.Equal(t, 12, calls(ctx, "design", 13), "20 - 8 calls pass, the 13th is refused")
}

func TestRejectJavaArithmetic(t *testing.T) {
	tests := []struct {
		name     string
		count    float64
		batch    int
		calls    int
		admitted int
	}{
		{"count 0 blocks every call", 0, 1, 5, 0},
		{"a fractional count truncates: 2.5 admits 2", 2.5, 1, 5, 2},
		{"count 0.9 admits nothing (0 + 1 > 0.9)", 0.9, 1, 5, 0},
		{"a batch takes its whole size: 10 admits two batches of 4", 10, 4, 5, 2},
		{"a batch larger than count never passes", 3, 4, 5, 0},
		{"an exact fill: count 5 admits 5", 5, 1, 9, 5},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := "arith-" + string(rune('a'+i))
			load(t, qps(res, tt.count))
			admitted := 0
			for range tt.calls {
				e, b := runtime.Entry(context.Background(), res, runtime.WithBatchCount(tt.batch))
				if b == nil {
					admitted++
					e.Exit()
				}
			}
			assert.Equal(t, tt.admitted, admitted)
		})
	}
}

func TestRejectThreadGrade(t *testing.T) {
	load(t, flow.Rule{Resource: "threads", Grade: flow.GradeThread, Count: 2})
	ctx := context.Background()
	e1, b := runtime.Entry(ctx, "threads")
	require.Nil(t, b)
	e2, b := runtime.Entry(ctx, "threads")
	require.Nil(t, b)
	_, b = runtime.Entry(ctx, "threads")
	require.NotNil(t, b, "2 in flight + 1 > 2")
	e1.Exit()
	e3, b := runtime.Entry(ctx, "threads")
	require.Nil(t, b, "an exit frees a thread")
	e2.Exit()
	e3.Exit()
	e3.Exit() // idempotent: releases nothing twice
	assert.Equal(t, 2, calls(ctx, "threads", 2))
	assert.Equal(t, int64(0), runtime.LookupResource("threads").ClusterNode().Threads())

	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "threads", Grade: flow.GradeThread, Count: 0}}))
	assert.False(t, call(ctx, "threads"), "count 0 blocks every call")
}

// A thread rule loaded while calls are in flight counts them, as Java's
// curThreadNum does.
func TestRejectThreadGradeCountsCallsInFlightBeforeTheRule(t *testing.T) {
	load(t)
	ctx := context.Background()
	held, b := runtime.Entry(ctx, "threads-before")
	require.Nil(t, b)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "threads-before", Grade: flow.GradeThread, Count: 1}}))
	assert.False(t, call(ctx, "threads-before"))
	held.Exit()
	assert.True(t, call(ctx, "threads-before"))
}

// A QPS rule loaded mid-window starts from the passes already counted.
func TestRejectNewRuleStartsFromTheWindowsPasses(t *testing.T) {
	load(t)
	ctx := context.Background()
	require.Equal(t, 4, calls(ctx, "mid-window", 4))
	require.NoError(t, flow.LoadRules([]flow.Rule{qps("mid-window", 5)}))
	assert.Equal(t, 1, calls(ctx, "mid-window", 3))
}

// An unchanged rule keeps its counts across a load of other rules.
func TestRejectStateSurvivesUnrelatedLoads(t *testing.T) {
	load(t, qps("steady", 3))
	ctx := context.Background()
	require.Equal(t, 3, calls(ctx, "steady", 3))
	require.NoError(t, flow.LoadRules([]flow.Rule{qps("steady", 3), qps("other-resource", 1)}))
	assert.False(t, call(ctx, "steady"))
}

// refuseEvery is a slot after the flow slot that refuses the calls of one
// resource while refusing is set.
type refuseEvery struct {
	resource string
	refusing func() bool
}

func (s refuseEvery) Bind(r *runtime.Resource) runtime.Checker {
	if r.Name() != s.resource {
		return nil
	}
	return s
}

func (s refuseEvery) Check(c *runtime.Call) *runtime.BlockError {
	if s.refusing() {
		return c.Block(runtime.BlockCustom, nil, nil)
	}
	return nil
}

func (refuseEvery) Exit(*runtime.Call) {}

func TestRejectGivesBackWhatALaterSlotRefused(t *testing.T) {
	refusing := true
	runtime.RegisterSlot("flow-test-refuser", runtime.OrderDegrade+1, refuseEvery{"refused-later", func() bool { return refusing }})
	t.Cleanup(func() { runtime.UnregisterSlot("flow-test-refuser") })
	load(t, qps("refused-later", 3),
		flow.Rule{Resource: "refused-later", Grade: flow.GradeThread, Count: 1, LimitApp: "appA"})
	ctx := from("appA")
	assert.Equal(t, 0, calls(ctx, "refused-later", 10))
	refusing = false
	held, b := runtime.Entry(ctx, "refused-later")
	require.Nil(t, b, "neither the passes nor the thread of the refused calls are held")
	_, b = runtime.Entry(ctx, "refused-later")
	require.NotNil(t, b)
	assert.Equal(t, "appA", b.TriggeredValue())
	held.Exit()
	// The appA thread rule is checked first and refused the second call,
	// so only the held call took one of the 3 passes.
	assert.Equal(t, 2, calls(ctx, "refused-later", 5))
}

// The QPS pass taken by an earlier rule is given back when a later rule of
// the same resource refuses the call.
func TestRejectGivesBackWhatALaterRuleRefused(t *testing.T) {
	load(t,
		flow.Rule{Resource: "two-rules", Grade: flow.GradeQPS, Count: 2, LimitApp: "appA"},
		flow.Rule{Resource: "two-rules", Grade: flow.GradeThread, Count: 0})
	assert.Equal(t, 0, calls(from("appA"), "two-rules", 5))
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "two-rules", Grade: flow.GradeQPS, Count: 2, LimitApp: "appA"}}))
	assert.Equal(t, 2, calls(from("appA"), "two-rules", 5), "the unchanged appA rule has 2 passes left")
}
