package degrade_test

import (
	"context"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Java's DegradeSlot.exit looks the resource's breakers up when the call
// exits (DegradeRuleManager.getCircuitBreakers), not when it entered: a
// call in flight across a reload completes on the new breakers, and the
// breakers it entered through, gone with their rule, never hear of it.
func TestBreakersAreLookedUpAtExit(t *testing.T) {
	clk := setup(t)
	lenient := degrade.Rule{Resource: "exit-lookup", Grade: degrade.ErrorCount, Count: 100, TimeWindow: 10, MinRequestAmount: 1}
	strict := degrade.Rule{Resource: "exit-lookup", Grade: degrade.ErrorCount, Count: 0, TimeWindow: 10, MinRequestAmount: 1}
	load(t, lenient)

	e, b := runtime.Entry(context.Background(), "exit-lookup")
	require.Nil(t, b)
	load(t, strict) // the call is in flight
	clk.Advance(10 * time.Millisecond)
	e.Exit(runtime.WithError(errBusiness))

	assert.Equal(t, degrade.Open, state(t, "exit-lookup", 0), "the new breaker counted the error: 1 > 0")
	assert.False(t, call(clk, "exit-lookup", 0, nil))
}

// Without rules at exit, nothing is counted: the old breaker is not told.
func TestBreakersRemovedBeforeExitCountNothing(t *testing.T) {
	clk := setup(t)
	strict := degrade.Rule{Resource: "exit-removed", Grade: degrade.ErrorCount, Count: 0, TimeWindow: 10, MinRequestAmount: 1}
	load(t, strict)
	e, b := runtime.Entry(context.Background(), "exit-removed")
	require.Nil(t, b)
	load(t)
	e.Exit(runtime.WithError(errBusiness))
	load(t, strict) // a new breaker, closed
	assert.Equal(t, degrade.Closed, state(t, "exit-removed", 0))
	assert.True(t, call(clk, "exit-removed", 0, nil))
}
