package sentineltest

import (
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/authority"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/sentinelgen/sentinelgen/runtime/system"
)

// Reset clears the rules of every kind and puts the runtime on a fresh
// hand clock, so that every sliding window reads empty; it clears the
// rules again when the test ends, and puts the previous clock back.
// Clock(tb) returns the new clock.
//
// Forced blocks are not rules: Reset leaves them in place, and each ends
// with the test that placed it.
func Reset(tb testing.TB) {
	tb.Helper()
	clearRules(tb)
	acquire(tb, true)
	tb.Cleanup(func() { clearRules(tb) })
}

// clearRules loads an empty rule set of every kind. Loading nil cannot be
// refused; an error here is a runtime bug worth failing the test for.
func clearRules(tb testing.TB) {
	tb.Helper()
	for _, c := range []struct {
		kind  string
		clear func() error
	}{
		{"flow", func() error { return flow.LoadRules(nil) }},
		{"degrade", func() error { return degrade.LoadRules(nil) }},
		{"system", func() error { return system.LoadRules(nil) }},
		{"authority", func() error { return authority.LoadRules(nil) }},
		{"paramflow", func() error { return paramflow.LoadRules(nil) }},
	} {
		if err := c.clear(); err != nil {
			tb.Errorf("sentineltest.Reset: clearing %s rules: %v", c.kind, err)
		}
	}
}
