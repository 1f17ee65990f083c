// Package clocktest provides a hand-stepped clock for tests of code protected
// by the sentinelgen runtime:
//
//	c := clocktest.Install(t) // the runtime's clock until the test ends
//	... runtime.Entry(...) ...
//	c.Advance(500 * time.Millisecond)
//
// or, outside a test:
//
//	c := clocktest.New()
//	defer runtime.SetClock(c)()
//	... runtime.Entry(...) ...
//	c.Advance(500 * time.Millisecond)
//
// Every clock New returns starts on a whole minute that is later than any
// time a previous clock reached, so statistics left by an earlier test are
// always stale for the next one, and window arithmetic starts aligned.
package clocktest

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Clock is a manual clock. Sleep advances it instead of waiting. It is safe
// for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

var highWater atomic.Int64 // latest Unix ms any Clock reached

// New returns a clock set to a fresh whole minute.
func New() *Clock {
	const minute = int64(time.Minute / time.Millisecond)
	for {
		prev := highWater.Load()
		base := max(prev, time.Now().UnixMilli())
		start := (base/minute + 2) * minute
		if highWater.CompareAndSwap(prev, start) {
			return &Clock{now: time.UnixMilli(start)}
		}
	}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep advances the clock by d.
func (c *Clock) Sleep(d time.Duration) { c.Advance(d) }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	ms := c.now.UnixMilli()
	c.mu.Unlock()
	for {
		prev := highWater.Load()
		if ms <= prev || highWater.CompareAndSwap(prev, ms) {
			return
		}
	}
}

// Millis returns the clock's time in Unix milliseconds.
func (c *Clock) Millis() int64 { return c.Now().UnixMilli() }

// Install makes a new Clock the runtime's clock (runtime.SetClock) until
// the test ends, and returns it.
func Install(tb testing.TB) *Clock {
	tb.Helper()
	c := New()
	tb.Cleanup(runtime.SetClock(c))
	return c
}
