// Package clock is the runtime's time source: a millisecond clock that keeps
// time.Now off the hot path, and a seam through which tests replace it.
//
// The default clock is Java Sentinel's TimeUtil: a goroutine refreshes a
// cached millisecond reading every millisecond while the runtime is in use,
// and stops after a second in which nobody read it, so an idle process runs no
// ticker at all. Reading it is two atomic loads.
package clock

import (
	"context"
	"sync/atomic"
	"time"
	_ "unsafe" // for go:linkname
)

// Clock is a time source. Sleep is how throttling waits pass time, so a test
// clock can step time instead of sleeping.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

type override struct{ c Clock }

var (
	replaced atomic.Pointer[override]

	cachedMillis  atomic.Int64
	ticking       atomic.Bool
	readSinceTick atomic.Bool
)

// idleTicks is how many ticks without a read stop the ticker.
const idleTicks = 1000

// Millis returns the current time in Unix milliseconds.
func Millis() int64 {
	if o := replaced.Load(); o != nil {
		return o.c.Now().UnixMilli()
	}
	if ticking.Load() {
		if !readSinceTick.Load() {
			readSinceTick.Store(true)
		}
		return cachedMillis.Load()
	}
	return startTicker()
}

// Now returns the current time as the clock in force sees it.
func Now() time.Time {
	if o := replaced.Load(); o != nil {
		return o.c.Now()
	}
	return time.Now()
}

// Nanos returns a monotonic reading in nanoseconds, for measuring spans
// of time finer than Millis's. It reads the Go runtime's monotonic clock
// directly (runtime.nanotime, on the Go runtime's list of linknamed symbols
// kept for widely used packages): half the cost of time.Now, which reads
// the wall clock too. A replaced clock's Now stands in for it, so tests
// step it by hand.
func Nanos() int64 {
	if o := replaced.Load(); o != nil {
		return o.c.Now().UnixNano()
	}
	return nanotime()
}

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// Sleep pauses for d through the clock in force.
func Sleep(d time.Duration) {
	_ = SleepContext(context.Background(), d)
}

// SleepContext pauses for d through the clock in force, or until ctx is
// done, and returns ctx.Err() when the wait was abandoned. A replaced clock's
// Sleep cannot be interrupted: ctx is consulted before and after it.
func SleepContext(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	if o := replaced.Load(); o != nil {
		o.c.Sleep(d)
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Set replaces the clock until restore is called. A nil c restores the
// default clock.
func Set(c Clock) (restore func()) {
	var next *override
	if c != nil {
		next = &override{c: c}
	}
	prev := replaced.Swap(next)
	return func() { replaced.Store(prev) }
}

func startTicker() int64 {
	now := time.Now().UnixMilli()
	if ticking.CompareAndSwap(false, true) {
		cachedMillis.Store(now)
		readSinceTick.Store(true)
		go tick()
	}
	return now
}

// tick refreshes the cached reading until a whole idle period passes with no
// reader, then stops; the next Millis starts it again.
func tick() {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for n := 1; ; n++ {
		<-t.C
		cachedMillis.Store(time.Now().UnixMilli())
		if n%idleTicks == 0 && !readSinceTick.Swap(false) {
			ticking.Store(false)
			return
		}
	}
}
