package paramflow

import (
	"math"
	"math/bits"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// bound is a rule bound to one resource: the rule and the resource's
// per-value state under it.
type bound struct {
	*compiledRule
	values *cache
	// cluster counts a cluster rule across instances (cluster.go); nil
	// for local rules and while no ClusterChecker is set.
	cluster ClusterChecker
}

// pass checks one value against limit, its count (Java's
// passSingleValueCheck). taken is how many times this call already took
// the value's thread count (a repeated value in a list argument).
func (b *bound) pass(c *runtime.Call, k key, taken, limit int64) bool {
	switch {
	case b.grade == GradeThread:
		return b.passThread(k, limit, taken)
	case b.throttle:
		return b.passThrottle(c, k, limit, b.dry)
	default:
		return b.passTokenBucket(k, limit, c.BatchCount(), c.NowMillis())
	}
}

// passTokenBucket is Java's ParamFlowChecker.passDefaultLocalCheck: a
// bucket of tokenCount+burstCount tokens per value, refilled only once
// durationInSec has passed since the last refill, by
// passTime*tokenCount/(durationInSec*1000) tokens.
//
// Java's refill updates the tokens and then the refill time, so two
// callers can both refill; here the refill time is claimed first, so a
// refill happens once. A single caller sees Java's arithmetic exactly.
func (b *bound) passTokenBucket(k key, tokenCount, acquire, now int64) bool {
	if tokenCount == 0 {
		return false
	}
	maxCount := tokenCount + b.burst
	if acquire > maxCount {
		return false
	}
	e, created := b.values.getOrCreate(k, now, maxCount-acquire, 0)
	if created {
		return true // a new value starts with a full bucket, less this call
	}
	for {
		last := e.last.Load()
		passTime := now - last
		if passTime > b.durationMs {
			toAdd := refill(passTime, tokenCount, b.durationMs)
			rest := e.tokens.Load()
			if rest+min(toAdd, maxCount-rest)-acquire < 0 {
				return false // Java neither refills nor moves the refill time
			}
			if !e.last.CompareAndSwap(last, now) {
				continue // another call refilled first
			}
			for {
				full := rest + min(toAdd, maxCount-rest)
				next, ok := full-acquire, true
				if next < 0 { // drained by other calls meanwhile: keep the refill
					next, ok = full, false
				}
				if e.tokens.CompareAndSwap(rest, next) {
					return ok
				}
				rest = e.tokens.Load()
			}
		}
		old := e.tokens.Load()
		if old-acquire < 0 {
			return false
		}
		if e.tokens.CompareAndSwap(old, old-acquire) {
			return true
		}
	}
}

// refill is passTime*tokenCount/durationMs, saturating instead of
// overflowing after very long idle times.
func refill(passTime, tokenCount, durationMs int64) int64 {
	hi, lo := bits.Mul64(uint64(passTime), uint64(tokenCount))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo) / durationMs
}

// passThrottle is Java's passThrottleLocalCheck: a value's calls are
// spaced durationInSec*1000/tokenCount ms apart (times the batch count); a
// call that would wait less than maxQueueingTimeMs waits for its turn, a
// later one is refused. The wait goes through the runtime clock and gives
// up, refusing the call, when the caller's context is done.
//
// Java sets the last pass time to now and then to the expected time; here
// it moves straight to the later of the two, so no other call can slip in
// between. A dry-run rule (dry) takes the call's turn without waiting.
func (b *bound) passThrottle(c *runtime.Call, k key, tokenCount int64, dry bool) bool {
	if tokenCount == 0 {
		return false
	}
	now := c.NowMillis()
	cost := int64(math.Round(1000 * float64(c.BatchCount()) * float64(b.durationSec) / float64(tokenCount)))
	e, created := b.values.getOrCreate(k, now, 0, 0)
	if created {
		return true
	}
	for {
		last := e.last.Load()
		expected := last + cost
		if expected > now && expected-now >= b.maxQueue {
			return false
		}
		if !e.last.CompareAndSwap(last, max(now, expected)) {
			continue
		}
		if wait := expected - now; wait > 0 && !dry {
			if c.Sleep(time.Duration(wait)*time.Millisecond) != nil {
				return false
			}
		}
		return true
	}
}

// passThread is the thread grade: at most threshold calls of a value in
// flight (Java's ParamFlowChecker: threadCount+1 <= threshold). The count
// is taken here, with compare-and-swap, so concurrent calls never exceed it
// (Java checks here and counts later); release gives it back.
//
// Java checks every element of a list argument against the counts from
// before the call, then counts each element once (ParameterMetric's
// addThreadCount), so [a, a] passes a threshold of 1 and holds a twice.
// taken, this call's earlier takes of the value, is therefore left out of
// the check but stays counted.
func (b *bound) passThread(k key, threshold, taken int64) bool {
	if threshold <= 0 {
		return false
	}
	e, created := b.values.getOrCreate(k, 0, 0, 1)
	if created {
		return true // created holding this call
	}
	for {
		cur := e.threads.Load()
		if cur-taken+1 > threshold {
			return false
		}
		if e.threads.CompareAndSwap(cur, cur+1) {
			return true
		}
	}
}

// repeats counts, for each element of a list argument, how often its value
// came earlier in the list. Short lists are scanned; long ones (hostile
// input may send many elements) are counted in a map, so the cost stays
// linear.
type repeats struct {
	seen map[key]int64
}

// scanLimit is the list length up to which a scan is cheaper than a map.
const scanLimit = 16

func (r *repeats) before(keys []key, j int) int64 {
	if len(keys) <= scanLimit {
		var n int64
		for _, k := range keys[:j] {
			if k == keys[j] {
				n++
			}
		}
		return n
	}
	if r.seen == nil {
		r.seen = make(map[key]int64, len(keys))
	}
	n := r.seen[keys[j]]
	r.seen[keys[j]] = n + 1
	return n
}

// release gives back a thread-grade count taken by passThread.
func (b *bound) release(k key) {
	e := b.values.get(k)
	if e == nil {
		return
	}
	for {
		cur := e.threads.Load()
		if cur <= 0 || e.threads.CompareAndSwap(cur, cur-1) {
			return
		}
	}
}
