package flow_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An admitted call allocates its entry and nothing else, whatever rule
// kind admits it.
func TestAdmittedCallsAllocateOnlyTheEntry(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const big = 1e12
	tests := []struct {
		name string
		rule flow.Rule
		ctx  context.Context
	}{
		{"Direct Reject QPS", qps("alloc-qps", big), context.Background()},
		{"Direct Reject thread", flow.Rule{Resource: "alloc-threads", Count: big}, context.Background()},
		{"a specific origin", flow.Rule{Resource: "alloc-origin", Grade: flow.GradeQPS, Count: big, LimitApp: "appA"}, from("appA")},
		{"other", flow.Rule{Resource: "alloc-other", Grade: flow.GradeQPS, Count: big, LimitApp: "other"}, from("appB")},
		{"Relate", flow.Rule{Resource: "alloc-relate", Grade: flow.GradeQPS, Count: big, Strategy: flow.Relate, RefResource: "alloc-qps"}, context.Background()},
		{"Chain", flow.Rule{Resource: "alloc-chain", Grade: flow.GradeQPS, Count: big, Strategy: flow.Chain, RefResource: "flow-test-appC"}, from("appC")},
		{"WarmUp", flow.Rule{Resource: "alloc-warm", Grade: flow.GradeQPS, Count: big, ControlBehavior: flow.WarmUp}, context.Background()},
		{"Throttling", flow.Rule{Resource: "alloc-queue", Grade: flow.GradeQPS, Count: big, ControlBehavior: flow.Throttling}, context.Background()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			load(t, tt.rule)
			r := runtime.Declare(runtime.ResourceSpec{Name: tt.rule.Resource})
			call(tt.ctx, tt.rule.Resource) // first calls create nodes and gates
			allocs := testing.AllocsPerRun(200, func() {
				e, b := r.Entry(tt.ctx)
				if b != nil {
					t.Fatal(b)
				}
				e.Exit()
			})
			assert.LessOrEqual(t, allocs, 1.0)
		})
	}
}

// A refused call allocates its entry and nothing else: every refusal by a
// rule on a resource gets the same BlockError, built when the rule bound.
func TestRefusedCallsAllocateOnlyTheEntry(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	tests := []struct {
		name string
		rule flow.Rule
		ctx  context.Context
	}{
		{"Direct Reject QPS", qps("refuse-qps", 0), context.Background()},
		{"Direct Reject thread", flow.Rule{Resource: "refuse-threads", Count: 0}, context.Background()},
		{"a specific origin", flow.Rule{Resource: "refuse-origin", Grade: flow.GradeQPS, Count: 0, LimitApp: "appA"}, from("appA")},
		{"WarmUp", flow.Rule{Resource: "refuse-warm", Grade: flow.GradeQPS, Count: 0, ControlBehavior: flow.WarmUp}, context.Background()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			load(t, tt.rule)
			r := runtime.Declare(runtime.ResourceSpec{Name: tt.rule.Resource})
			_, first := r.Entry(tt.ctx) // binds the chain, creates nodes and gates
			require.NotNil(t, first)
			allocs := testing.AllocsPerRun(200, func() {
				e, b := r.Entry(tt.ctx)
				if b == nil {
					e.Exit()
					t.Fatal("admitted")
				}
			})
			assert.Equal(t, 1.0, allocs)
			_, again := r.Entry(tt.ctx)
			assert.Same(t, first, again, "one BlockError for every refusal by the rule")
			assert.Equal(t, tt.rule.Resource, again.Resource())
			assert.Equal(t, again.Rule().(*flow.Rule).LimitApp, again.TriggeredValue(), "the rule's limitApp, as Java's")
		})
	}
}

// Admitted calls allocate as many times as refused ones: a refusal is
// never the dearer path.
func TestAdmittedAndRefusedCallsAllocateOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	load(t, qps("alloc-both-admit", 1e12), qps("alloc-both-refuse", 0))
	admit := runtime.Declare(runtime.ResourceSpec{Name: "alloc-both-admit"})
	refuse := runtime.Declare(runtime.ResourceSpec{Name: "alloc-both-refuse"})
	ctx := context.Background()
	admitted := testing.AllocsPerRun(200, func() {
		if e, b := admit.Entry(ctx); b == nil {
			e.Exit()
		}
	})
	refused := testing.AllocsPerRun(200, func() {
		if e, b := refuse.Entry(ctx); b == nil {
			e.Exit()
		}
	})
	assert.Equal(t, 1.0, admitted)
	assert.Equal(t, 1.0, refused)
}

// A call opened with Enter allocates nothing, admitted or refused: its
// entry is reused, and a refusal returns the rule's one BlockError.
func TestEnterAllocatesNothingAdmittedOrRefused(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates, and its sync.Pool drops entries")
	}
	load(t, qps("enter-admit", 1e12), qps("enter-refuse", 0),
		flow.Rule{Resource: "enter-threads", Count: 1e12})
	ctx := context.Background()
	for _, name := range []string{"enter-admit", "enter-threads"} {
		r := runtime.Declare(runtime.ResourceSpec{Name: name})
		tk, _ := r.Enter(ctx) // binds the chain, creates nodes and gates
		tk.Exit()
		assert.EqualValues(t, 0, testing.AllocsPerRun(200, func() {
			tk, b := r.Enter(ctx)
			if b != nil {
				t.Fatal(b)
			}
			tk.Exit()
		}), name)
	}
	refuse := runtime.Declare(runtime.ResourceSpec{Name: "enter-refuse"})
	_, first := refuse.Enter(ctx)
	require.NotNil(t, first)
	assert.EqualValues(t, 0, testing.AllocsPerRun(200, func() {
		if tk, b := refuse.Enter(ctx); b == nil {
			tk.Exit()
			t.Fatal("admitted")
		}
	}), "refused")
}
