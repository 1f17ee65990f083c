// Package clock is the runtime's time source: a millisecond clock that keeps
// time.Now off the hot path, and a seam through which tests replace it.
//
// The default clock is Java Sentinel's TimeUtil: a goroutine refreshes a
// cached millisecond reading every millisecond while the runtime is in use,
// and stops after a second in which nobody read it, so an idle process runs no
// ticker at all. Reading it is one atomic load, inlined in the caller.
package clock

import (
	"context"
	"sync"
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

	// cached is the ticker's reading in Unix milliseconds, shifted left by
	// two, plus two flags: read, once a caller has read the reading, and
	// overridden, while Set's clock replaces this one. It holds no
	// reading (0, or the overridden flag alone) while no ticker runs. Every write to it is a compare-and-swap of the whole
	// word (the ticker's too), so that no write loses another's flag, and
	// the common read is one load, small enough to be inlined (with the
	// functions of sync/atomic: atomic.Int64's methods would not be).
	cached int64
)

const (
	// read marks a reading a caller has read: the ticker stops after
	// idleTicks ticks whose readings nobody read.
	read = 1 << iota
	// overridden: Millis must ask replaced.
	overridden
	flagBits = iota
)

// idleTicks is how many ticks without a read stop the ticker.
const idleTicks = 1000

// Millis returns the current time in Unix milliseconds.
func Millis() int64 {
	if v := atomic.LoadInt64(&cached); v&(read|overridden) == read {
		return v >> flagBits
	}
	return millis()
}

// millis is Millis but for its common case: a replaced clock, the first
// read of a tick's reading, or no ticker running.
func millis() int64 {
	if o := replaced.Load(); o != nil {
		return o.c.Now().UnixMilli()
	}
	for {
		v := atomic.LoadInt64(&cached)
		if v&^overridden == 0 {
			return startTicker()
		}
		if v&overridden != 0 || atomic.CompareAndSwapInt64(&cached, v, v|read) {
			// overridden: Set is between its two writes, or restoring.
			return v >> flagBits
		}
	}
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
	setMu.Lock()
	defer setMu.Unlock()
	prev := replaced.Swap(next)
	markOverridden(next != nil)
	return func() {
		setMu.Lock()
		defer setMu.Unlock()
		replaced.Store(prev)
		markOverridden(prev != nil)
	}
}

// setMu makes each Set and restore's two writes, the clock and the
// overridden flag, one step among Sets and restores: without it, one
// restoring between another's two writes could leave the flag cleared
// under a clock in force, and Millis reading the ticker while Now reads
// the clock set.
var setMu sync.Mutex

// markOverridden sets or clears cached's overridden flag.
func markOverridden(on bool) {
	for {
		v := atomic.LoadInt64(&cached)
		w := v &^ overridden
		if on {
			w |= overridden
		}
		if v == w || atomic.CompareAndSwapInt64(&cached, v, w) {
			return
		}
	}
}

func startTicker() int64 {
	now := time.Now().UnixMilli()
	for {
		v := atomic.LoadInt64(&cached)
		if v&^overridden != 0 {
			return now // another caller started it
		}
		if atomic.CompareAndSwapInt64(&cached, v, now<<flagBits|read|v&overridden) {
			go tick()
			return now
		}
	}
}

// tick refreshes the cached reading until a whole idle period passes with no
// reader, then stops; the next Millis starts it again.
func tick() {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	wasRead := true // startTicker's caller read the first reading
	for n := 1; ; n++ {
		<-t.C
		now := time.Now().UnixMilli() << flagBits
		var v, w int64
		for {
			v = atomic.LoadInt64(&cached)
			if w = now | v&overridden; atomic.CompareAndSwapInt64(&cached, v, w) {
				break
			}
		}
		if v&read != 0 {
			wasRead = true
		}
		if n%idleTicks == 0 {
			// A read of w since fails the CAS: it keeps ticking.
			if !wasRead && atomic.CompareAndSwapInt64(&cached, w, w&overridden) {
				return
			}
			wasRead = false
		}
	}
}
