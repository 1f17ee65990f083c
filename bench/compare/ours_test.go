package compare

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// ours is the runtime's Entry, whose entry is the call's one allocation.
var ours = protector{
	name: "ours",
	admitting: func(tb testing.TB, resources ...string) {
		dr := make([]degrade.Rule, len(resources))
		for i, r := range resources {
			// A slow-call breaker whose slow is an hour: closed for good.
			dr[i] = degrade.Rule{Resource: r, Grade: degrade.SlowRequestRatio, Count: 3_600_000,
				SlowRatioThreshold: 1, TimeWindow: 10}
		}
		loadOurs(tb, ourFlow(resources, 1e12), dr)
	},
	admittingFlow: func(tb testing.TB, resources ...string) { loadOurs(tb, ourFlow(resources, 1e12), nil) },
	refusing:      func(tb testing.TB, resources ...string) { loadOurs(tb, ourFlow(resources, 0), nil) },
	enter: func(resource string) func() bool {
		r := runtime.Declare(runtime.ResourceSpec{Name: resource})
		ctx := context.Background()
		return func() bool {
			e, b := r.Entry(ctx)
			if b != nil {
				return false
			}
			e.Exit()
			return true
		}
	},
}

// oursEnter is the runtime's Enter, which returns a Ticket and allocates
// nothing: the same rules as ours, another way in.
var oursEnter = protector{
	name:          "enter",
	admitting:     ours.admitting,
	admittingFlow: ours.admittingFlow,
	refusing:      ours.refusing,
	enter: func(resource string) func() bool {
		r := runtime.Declare(runtime.ResourceSpec{Name: resource})
		ctx := context.Background()
		return func() bool {
			t, b := r.Enter(ctx)
			if b != nil {
				return false
			}
			t.Exit()
			return true
		}
	},
}

// ourFlow is a QPS flow rule of count on each resource.
func ourFlow(resources []string, count float64) []flow.Rule {
	fr := make([]flow.Rule, len(resources))
	for i, r := range resources {
		fr[i] = flow.Rule{Resource: r, Grade: flow.GradeQPS, Count: count}
	}
	return fr
}

func loadOurs(tb testing.TB, fr []flow.Rule, dr []degrade.Rule) {
	tb.Helper()
	if err := flow.LoadRules(fr); err != nil {
		tb.Fatal(err)
	}
	if err := degrade.LoadRules(dr); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = flow.LoadRules(nil)
		_ = degrade.LoadRules(nil)
	})
}
