package paramflow_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/stretchr/testify/assert"
)

// An admitted call of a value already held allocates its entry and
// nothing else, whatever the argument's type and the rule's kind.
func TestAdmittedCallsAllocateOnlyTheEntry(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	thread := paramflow.NewRule("alloc-pf-thread", 0, 1e9)
	thread.Grade = paramflow.GradeThread
	throttle := paramflow.NewRule("alloc-pf-throttle", 0, 1e9)
	throttle.ControlBehavior = paramflow.BehaviorRateLimiter
	tests := []struct {
		name string
		rule paramflow.Rule
		args []any
	}{
		{"int64", paramflow.NewRule("alloc-pf-int", 0, 1e12), []any{int64(4242)}},
		{"string", paramflow.NewRule("alloc-pf-string", 0, 1e12), []any{"user-12345"}},
		{"uint32", paramflow.NewRule("alloc-pf-uint", 0, 1e12), []any{uint32(7)}},
		{"float64", paramflow.NewRule("alloc-pf-float", 0, 1e12), []any{2.5}},
		{"named integer", paramflow.NewRule("alloc-pf-named", 0, 1e12), []any{OrderID(9)}},
		{"[]int64", paramflow.NewRule("alloc-pf-slice", 0, 1e12), []any{[]int64{1, 2, 3}}},
		// ParamKey returns a small int64, which Go boxes without allocating;
		// a ParamKey returning a larger non-pointer value allocates its box.
		{"Keyer", paramflow.NewRule("alloc-pf-keyer", 0, 1e12), []any{user{id: 5}}},
		{"last of two", paramflow.NewRule("alloc-pf-last", -1, 1e12), []any{"a", int64(8)}},
		{"thread grade", thread, []any{int64(4242)}},
		{"throttling", throttle, []any{int64(4242)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			load(t, tt.rule)
			r := runtime.Declare(runtime.ResourceSpec{Name: tt.rule.Resource})
			ctx := context.Background()
			opt := runtime.WithArgs(tt.args...)
			e, _ := r.Entry(ctx, opt) // the first call creates the value's state
			e.Exit()
			allocs := testing.AllocsPerRun(200, func() {
				e, b := r.Entry(ctx, opt)
				if b != nil {
					t.Fatal(b)
				}
				e.Exit()
			})
			assert.Equal(t, 1.0, allocs)
		})
	}
}
