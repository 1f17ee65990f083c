package cluster

import (
	"sync/atomic"
	"time"
)

// breaker stops the client from hammering a Redis that does not answer:
// after `failures` consecutive failed checks it opens for `cooldown`, in
// which checks fail at once without touching Redis; then one call probes
// Redis, and its success closes the breaker (its failure opens it again).
//
// It reads the wall clock (time.Now), not the runtime's clock: Redis
// outages happen in real time, also under a test's stepped clock, and the
// call that reads it is about to do network I/O anyway.
type breaker struct {
	failures  int32
	cooldown  time.Duration
	failed    atomic.Int32
	openUntil atomic.Int64 // unix nanoseconds; 0 when closed
	probing   atomic.Bool
}

// allow reports whether a call may go to Redis, and whether it is the
// probe of an open breaker (which must then report its outcome).
func (b *breaker) allow() (ok, probe bool) {
	until := b.openUntil.Load()
	if until == 0 {
		return true, false
	}
	if time.Now().UnixNano() < until {
		return false, false
	}
	if b.probing.CompareAndSwap(false, true) {
		return true, true
	}
	return false, false
}

// success reports whether it closed an open breaker (an outage ended).
func (b *breaker) success(probe bool) (closed bool) {
	if b.failed.Load() != 0 {
		b.failed.Store(0)
	}
	if b.openUntil.Load() != 0 {
		closed = b.openUntil.Swap(0) != 0
	}
	if probe {
		b.probing.Store(false)
	}
	return closed
}

// failure reports whether it opened a closed breaker (an outage began; a
// failed probe only extends it).
func (b *breaker) failure(probe bool) (opened bool) {
	if n := b.failed.Add(1); probe || n >= b.failures {
		opened = b.openUntil.Swap(time.Now().Add(b.cooldown).UnixNano()) == 0
	}
	if probe {
		b.probing.Store(false)
	}
	return opened
}

// abandon ends a probe that had no outcome (the caller gave up).
func (b *breaker) abandon(probe bool) {
	if probe {
		b.probing.Store(false)
	}
}

func (b *breaker) open() bool { return b.openUntil.Load() != 0 }
