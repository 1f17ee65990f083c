package flow_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Origins come from request headers: an attacker chooses them. These tests
// are the attacker's: each floods a resource with junk origins first.

// web is the context a web adapter enters: one name, the caller's origin.
func web(origin string) context.Context {
	return runtime.EnterContext(context.Background(), "hostile-web", origin)
}

func floodOrigins(t *testing.T, resource string, n int) {
	t.Helper()
	for i := range n {
		e, b := runtime.Entry(web(fmt.Sprintf("junk-%d", i)), resource)
		if b == nil {
			e.Exit()
		}
	}
}

func TestOriginFloodDoesNotSwitchANamedOriginRuleOff(t *testing.T) {
	for _, behavior := range []flow.ControlBehavior{flow.Reject, flow.Throttling, flow.WarmUp} {
		t.Run(behavior.String(), func(t *testing.T) {
			res := "flood-named-" + behavior.String()
			c := load(t)
			floodOrigins(t, res, runtime.MaxOriginsPerResource+500)
			require.NoError(t, flow.LoadRules([]flow.Rule{{
				Resource: res, LimitApp: "appA", Grade: flow.GradeQPS, Count: 1,
				ControlBehavior: behavior, WarmUpPeriodSec: 10, MaxQueueingTimeMs: 0,
			}}))
			c.Advance(2000)
			admitted := calls(web("appA"), res, 20)
			assert.LessOrEqual(t, admitted, 1, "the rule for appA keeps applying after the flood")
			if behavior != flow.WarmUp { // a cold warm-up rule of 1 admits count/3: none
				assert.Equal(t, 1, admitted, "and still admits its count")
			}
		})
	}
}

func TestOtherOriginsPastTheCapShareOneLimit(t *testing.T) {
	res := "flood-other"
	load(t, flow.Rule{Resource: res, LimitApp: flow.LimitAppOther, Grade: flow.GradeQPS, Count: 2})
	floodOrigins(t, res, runtime.MaxOriginsPerResource)
	// Every origin from here on is past the cap: they count together.
	admitted := 0
	for i := range 50 {
		if call(web(fmt.Sprintf("late-%d", i)), res) {
			admitted++
		}
	}
	assert.Equal(t, 2, admitted, "origins past the cap are limited as one caller, never waved through")
}

func TestOtherOriginGatesAreBoundedAndFlat(t *testing.T) {
	res := "flood-other-flat"
	load(t, flow.Rule{Resource: res, LimitApp: flow.LimitAppOther, Grade: flow.GradeQPS, Count: 1})
	const n = 20_000
	allocs := testing.AllocsPerRun(1, func() { floodOrigins(t, res, n) })
	// Copying a map per new origin allocated O(n) per origin; now a new
	// origin past the cap costs what a known one does.
	assert.Less(t, allocs/n, 12.0, "allocations per new origin stay flat")
	assert.LessOrEqual(t, len(runtime.LookupResource(res).ClusterNode().Origins()), runtime.MaxOriginsPerResource+1)
}
