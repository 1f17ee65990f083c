package flow_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
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
