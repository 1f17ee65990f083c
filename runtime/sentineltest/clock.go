package sentineltest

import (
	"sync"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// lease is one hand clock installed in the runtime and the tests that
// use it. A test holds a lease once per Reset or Clock call.
type lease struct {
	clock   *clocktest.Clock
	restore func()
	holders map[string]int // by test name
}

var (
	clockMu sync.Mutex
	// leases are the installed hand clocks, the one in force last. Nested
	// tests push fresh clocks and pop them as they end; tests running in
	// parallel share the last one, since the runtime has a single clock.
	leases []*lease
)

// Clock returns the hand-stepped clock the runtime reads during the test:
// the one Reset installed for tb or a test it runs under, or else a fresh
// clock installed now and restored when the test ends. Tests running in
// parallel share one clock (the runtime has one): see the package
// documentation.
func Clock(tb testing.TB) *clocktest.Clock {
	tb.Helper()
	return acquire(tb, false)
}

// acquire gives tb a lease on a hand clock. fresh asks for a new clock
// (fresh statistics); it is granted unless a test running in parallel with
// tb is on the clock in force, which is then shared rather than swapped
// under that test.
func acquire(tb testing.TB, fresh bool) *clocktest.Clock {
	clockMu.Lock()
	defer clockMu.Unlock()
	var l *lease
	if n := len(leases); n > 0 {
		top := leases[n-1]
		if !fresh || !onlyFamily(top, tb) {
			l = top
		}
	}
	if l == nil {
		c := clocktest.New()
		l = &lease{clock: c, restore: runtime.SetClock(c), holders: map[string]int{}}
		leases = append(leases, l)
	}
	name := tb.Name()
	l.holders[name]++
	tb.Cleanup(func() { release(l, name) })
	return l.clock
}

// onlyFamily reports whether every holder of l is tb or a test tb runs
// under: then a fresh clock for tb disturbs no other running test.
func onlyFamily(l *lease, tb testing.TB) bool {
	for h := range l.holders {
		if !within(tb.Name(), h) {
			return false
		}
	}
	return true
}

// release ends one of the named test's holds on l, and puts back the
// clocks no test holds any more, innermost first.
func release(l *lease, name string) {
	clockMu.Lock()
	defer clockMu.Unlock()
	if l.holders[name]--; l.holders[name] <= 0 {
		delete(l.holders, name)
	}
	for n := len(leases); n > 0 && len(leases[n-1].holders) == 0; n-- {
		leases[n-1].restore()
		leases = leases[:n-1]
	}
}
