package degrade

import (
	"sync/atomic"
	"unsafe"

	"github.com/sentinelgen/sentinelgen/internal/dryrun"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// breaker is one circuit breaker: Java 1.8's AbstractCircuitBreaker with
// ResponseTimeCircuitBreaker (slow ratio) or ExceptionCircuitBreaker
// (error ratio, error count) folded in, since they differ only in what
// makes a call bad and how the measure is computed.
//
// State moves only by compare-and-swap:
//
//	CLOSED -> OPEN       a completion finds the measure over the threshold
//	OPEN -> HALF_OPEN    a call arrives after the retry time: it is the probe
//	HALF_OPEN -> CLOSED  the probe completes good; the window is reset
//	HALF_OPEN -> OPEN    the probe completes bad (new retry time), or a
//	                     later slot blocks it (retry time unchanged)
type breaker struct {
	// What every call reads comes first: the state, and the statistics
	// in place rather than behind a pointer.
	state atomic.Int32
	grade Grade
	maxRT int64 // slow-ratio rules: calls slower than this are bad
	stat  window

	threshold  float64 // the ratio or count that must be exceeded
	recoveryMs int64
	nextRetry  atomic.Int64                 // Unix ms from which an OPEN breaker lets a probe through
	probe      atomic.Pointer[runtime.Call] // the call admitted by OPEN -> HALF_OPEN

	// rule is the breaker's rule as in force: an equal rule loaded again
	// (DryRun aside) keeps the breaker and replaces the rule.
	rule     atomic.Pointer[Rule]
	resource string
	// blocked is what every call the breaker refuses gets (refusal).
	blocked atomic.Pointer[runtime.BlockError]

	// refused holds the calls in flight this breaker refused as a dry-run
	// rule and let through: they are no samples and no probes. wasDry is
	// set once the breaker's rule has been a dry-run rule: from then on,
	// every exit asks refused, even after the rule is enforcing again, so
	// a call that straddles the switch is not counted.
	refused dryrun.Refused[runtime.Call]
	wasDry  atomic.Bool
}

func newBreaker(rule *Rule, resource string) *breaker {
	// Padded to a multiple of 64 bytes, a size class whose objects start
	// on a cache line: what a call reads, the first 48 bytes, is one line.
	b := &new(struct {
		b breaker
		_ [(64 - unsafe.Sizeof(breaker{})%64) % 64]byte
	}).b
	b.resource = resource
	b.grade = rule.Grade
	b.threshold = rule.Count
	b.recoveryMs = int64(rule.TimeWindow) * 1000
	b.stat = window{interval: int64(rule.StatIntervalMs), minRequests: int64(rule.MinRequestAmount)}
	if rule.Grade == SlowRequestRatio {
		b.maxRT = rule.maxAllowedRT()
		b.threshold = rule.SlowRatioThreshold
	}
	b.setRule(rule)
	return b
}

// setRule makes rule the breaker's rule: at creation, and when an equal
// rule (DryRun aside) is loaded again.
func (b *breaker) setRule(rule *Rule) {
	if cur := b.rule.Load(); cur != nil && *cur == *rule {
		// The same rule reloaded: BlockError.Rule and the block log's key
		// stay the same, so the reload starts no new block-log line.
		return
	}
	if rule.DryRun {
		b.wasDry.Store(true)
	}
	b.rule.Store(rule)
}

// refusal is the BlockError of every call the breaker refuses: built at
// its first refusal under its rule, so that a refusal allocates no error
// and a breaker never open holds none.
func (b *breaker) refusal() *runtime.BlockError {
	rule := b.rule.Load()
	if e := b.blocked.Load(); e != nil && e.Rule() == runtime.Rule(rule) {
		return e
	}
	e := runtime.NewSharedBlockError(runtime.BlockDegrade, b.resource, rule, nil)
	b.blocked.Store(e)
	return e
}

func (b *breaker) State() State { return State(b.state.Load()) }

// tryPass is Java's AbstractCircuitBreaker.tryPass: CLOSED admits; OPEN
// admits one call, the probe, once the retry time has come; HALF_OPEN
// refuses while the probe is out.
func (b *breaker) tryPass(c *runtime.Call, now int64) bool {
	switch State(b.state.Load()) {
	case Closed:
		return true
	case Open:
		if now < b.nextRetry.Load() {
			return false
		}
		// Storing the probe after the CAS is safe: only the probe's own
		// goroutine compares against it, and only after this returns.
		if !b.state.CompareAndSwap(int32(Open), int32(HalfOpen)) {
			return false
		}
		b.probe.Store(c)
		b.changed(Open, HalfOpen, 0, now)
		return true
	}
	return false
}

// abandon sends the breaker back to OPEN when c is its probe and c was
// blocked after the breaker admitted it: the probe proved nothing. The
// retry time stays, so the next call probes again (Java's whenTerminate
// hook for issue #1638).
func (b *breaker) abandon(c *runtime.Call, now int64) {
	if b.probe.Load() != c || !b.probe.CompareAndSwap(c, nil) {
		return
	}
	if b.state.CompareAndSwap(int32(HalfOpen), int32(Open)) {
		b.changed(HalfOpen, Open, 1.0, now)
	}
}

// complete counts an admitted call's outcome at now and moves the state
// (Java's onRequestComplete and handleStateChangeWhenThresholdExceeded).
func (b *breaker) complete(c *runtime.Call, now int64) {
	var bad bool
	if b.grade == SlowRequestRatio {
		bad = now-c.StartMillis() > b.maxRT
	} else {
		bad = c.Err() != nil
	}
	check, total, badCount := b.stat.add(now, c.Stripe(), bad)

	switch State(b.state.Load()) {
	case Open:
		return
	case HalfOpen:
		// Only the probe decides. Java lets any call that completes while
		// HALF_OPEN decide, even one admitted before the breaker opened;
		// its outcome says nothing about the recovery being tested.
		if b.probe.Load() != c || !b.probe.CompareAndSwap(c, nil) {
			return
		}
		if bad {
			b.nextRetry.Store(now + b.recoveryMs)
			if b.state.CompareAndSwap(int32(HalfOpen), int32(Open)) {
				b.changed(HalfOpen, Open, 1.0, now)
			}
			return
		}
		// Reset before closing, so that no call sees CLOSED with the
		// counts that opened the breaker.
		b.stat.reset(now)
		if b.state.CompareAndSwap(int32(HalfOpen), int32(Closed)) {
			b.changed(HalfOpen, Closed, 0, now)
		}
		return
	}

	if !check {
		return
	}
	measure := float64(badCount)
	if b.grade != ErrorCount {
		measure /= float64(total)
	}
	// Strictly above the threshold; a slow ratio of exactly 1.0 against
	// a threshold of 1.0 opens too (Java's SLOW_REQUEST_RATIO_MAX_VALUE
	// case), or a 1.0 threshold could never trip.
	if measure > b.threshold || (b.grade == SlowRequestRatio && measure == 1.0 && b.threshold == 1.0) {
		// The retry time is written before the state, so that no call can
		// see OPEN with the previous period's (past) retry time.
		b.nextRetry.Store(now + b.recoveryMs)
		if b.state.CompareAndSwap(int32(Closed), int32(Open)) {
			b.changed(Closed, Open, measure, now)
		}
	}
}

func (b *breaker) changed(from, to State, value float64, now int64) {
	notify(StateChange{Resource: b.resource, Rule: b.rule.Load(), From: from, To: to, Value: value, Millis: now})
}
