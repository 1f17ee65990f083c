package flow

import (
	"sync/atomic"
	"time"

	"github.com/sentinelgen/sentinelgen/internal/clock"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// statDurationMs is the span count is measured over (Java's
// ThrottlingController default).
const statDurationMs = 1000

// throttle is Java's ThrottlingController (the 1.x RateLimiterController
// with nanosecond precision added): calls pass one every
// round(1000*acquire/count) ms; a call whose turn is less than
// maxQueueingTimeMs away waits for it, a later one is refused.
//
// As Java, it measures in milliseconds of the runtime's cached clock when
// 1000 is a multiple of round(count) and count <= 1000, and in nanoseconds
// otherwise (count 3, count 2000), where a millisecond spacing would be
// wrong by up to a third. Java divides by zero when round(count) is 0
// (count < 0.5) and fails to load the rule; we use nanoseconds.
type throttle struct {
	count      float64
	maxQueueMs int64
	nanos      bool
	latest     atomic.Int64 // time the last admitted call was due; -1 at first
}

func newThrottle(count float64, maxQueueingTimeMs int) *throttle {
	t := &throttle{count: count, maxQueueMs: int64(maxQueueingTimeMs)}
	t.latest.Store(-1)
	if count > 0 {
		r := javaRound(count)
		t.nanos = r == 0 || statDurationMs%r != 0 || count/statDurationMs > 1
	}
	return t
}

// pass is ThrottlingController.canPass: it may sleep, through the
// runtime's clock, until the call's turn, and gives up (blocking the call,
// giving its turn back) when ctx is done first.
//
// A dry-run rule (dry) takes the call's turn but never waits for it.
func (t *throttle) pass(c *runtime.Call, now, acquire int64, dry bool) bool {
	if acquire <= 0 {
		return true
	}
	if t.count <= 0 {
		return false // Java: otherwise the cost is infinite and the wait overflows
	}
	if t.nanos {
		cost := javaRound(float64(time.Millisecond) * statDurationMs * float64(acquire) / t.count)
		return queue(c, &t.latest, clock.Now().UnixNano(), cost, t.maxQueueMs*int64(time.Millisecond), time.Nanosecond, dry)
	}
	cost := javaRound(statDurationMs * float64(acquire) / t.count)
	return queue(c, &t.latest, now, cost, t.maxQueueMs, time.Millisecond, dry)
}

// queue is the leaky-bucket step Java's ThrottlingController and
// WarmUpRateLimiterController share, in units of unit: pass at once when
// cost has elapsed since the last due time, else take the next turn if it
// is at most maxQueue away and wait for it (Call.Sleep: the call's later
// checks and its pass then see the time after the wait). A dry-run rule
// (dry) takes the turn without waiting for it.
func queue(c *runtime.Call, latest *atomic.Int64, now, cost, maxQueue int64, unit time.Duration, dry bool) bool {
	if cost+latest.Load() <= now {
		// Contention may let two calls through here; Java accepts it.
		latest.Store(now)
		return true
	}
	if cost+latest.Load()-now > maxQueue {
		return false
	}
	wait := latest.Add(cost) - now
	if wait > maxQueue {
		latest.Add(-cost) // another caller took the turn first
		return false
	}
	if wait > 0 && !dry {
		if err := c.Sleep(time.Duration(wait) * unit); err != nil {
			latest.Add(-cost) // abandoned: the turn goes back to the queue
			return false
		}
	}
	return true
}

// warmUpThrottle is Java's WarmUpRateLimiterController: the queue of
// throttle, with the spacing of the warm-up rate while the bucket is above
// the warning line.
type warmUpThrottle struct {
	*warmUp
	maxQueueMs int64
	latest     atomic.Int64
}

func newWarmUpThrottle(count float64, warmUpPeriodSec, maxQueueingTimeMs, coldFactor int) *warmUpThrottle {
	t := &warmUpThrottle{warmUp: newWarmUp(count, warmUpPeriodSec, coldFactor), maxQueueMs: int64(maxQueueingTimeMs)}
	t.latest.Store(-1)
	return t
}

func (t *warmUpThrottle) pass(c *runtime.Call, node *stat.Node, now, acquire int64, dry bool) bool {
	if t.count <= 0 {
		// Java computes a NaN cost, rounds it to 0 and admits everything;
		// a count of 0 blocks every call here, as for every other rule.
		return false
	}
	t.syncToken(now, javaLong(node.PreviousPassQPS(now)))
	rate := t.count
	if rest := t.storedTokens.Load(); rest >= int64(t.warningToken) {
		rate = t.warningQPS(rest)
	}
	cost := javaRound(float64(acquire) / rate * 1000)
	return queue(c, &t.latest, now, cost, t.maxQueueMs, time.Millisecond, dry)
}
