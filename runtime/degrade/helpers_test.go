package degrade_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/stretchr/testify/require"
)

var errBusiness = errors.New("business failure")

// setup installs a fresh hand-stepped clock and clears the rules after the
// test.
func setup(t *testing.T) *clocktest.Clock {
	t.Helper()
	clk := clocktest.New()
	restore := runtime.SetClock(clk)
	t.Cleanup(func() {
		require.NoError(t, degrade.LoadRules(nil))
		restore()
	})
	return clk
}

func load(t *testing.T, rules ...degrade.Rule) {
	t.Helper()
	require.NoError(t, degrade.LoadRules(rules))
}

// call enters res, lets d pass, and exits with err; it reports whether the
// call was admitted.
func call(clk *clocktest.Clock, res string, d time.Duration, err error) bool {
	e, b := runtime.Entry(context.Background(), res)
	if b != nil {
		return false
	}
	clk.Advance(d)
	e.Exit(runtime.WithError(err))
	return true
}

// state returns the state of the i-th breaker of res.
func state(t *testing.T, res string, i int) degrade.State {
	t.Helper()
	var found []degrade.BreakerInfo
	for _, b := range degrade.Breakers() {
		if b.Resource == res {
			found = append(found, b)
		}
	}
	require.Greater(t, len(found), i, "breakers of %s", res)
	return found[i].State
}

// recorder records state changes of one resource.
type recorder struct {
	mu     sync.Mutex
	events []degrade.StateChange
}

func record(t *testing.T, res string) *recorder {
	rec := &recorder{}
	name := "test-" + t.Name()
	degrade.RegisterStateChangeObserver(name, func(ev degrade.StateChange) {
		if ev.Resource != res {
			return
		}
		rec.mu.Lock()
		rec.events = append(rec.events, ev)
		rec.mu.Unlock()
	})
	t.Cleanup(func() { degrade.UnregisterStateChangeObserver(name) })
	return rec
}

type transition struct{ From, To degrade.State }

func (r *recorder) take() []transition {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]transition, len(r.events))
	for i, ev := range r.events {
		out[i] = transition{ev.From, ev.To}
	}
	r.events = nil
	return out
}

func (r *recorder) all() []degrade.StateChange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]degrade.StateChange(nil), r.events...)
}

var (
	closedToOpen     = transition{degrade.Closed, degrade.Open}
	openToHalfOpen   = transition{degrade.Open, degrade.HalfOpen}
	halfOpenToOpen   = transition{degrade.HalfOpen, degrade.Open}
	halfOpenToClosed = transition{degrade.HalfOpen, degrade.Closed}
)
