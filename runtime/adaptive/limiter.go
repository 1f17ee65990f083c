package adaptive

import (
	"math"
	"sync"
	"sync/atomic"
)

// limiter is one resource's adaptive limit: the Checker its rule binds.
// The same limiter serves a resource across rule reloads, so that the
// calls in flight and what it has learnt carry over.
//
// The admitting path (Check) and Exit use atomics only. At the end of each
// sample interval the first call to exit recomputes the limit under mu,
// taken with TryLock: a call that finds it taken goes on without waiting.
type limiter struct {
	// inFlight, written by every call, has a cache line of its own; the
	// fields every call reads share the next.
	inFlight atomic.Int64
	_        [56]byte

	rule  atomic.Pointer[Rule] // with defaults filled in
	limit atomic.Int64
	cur   atomic.Pointer[window]
	next  atomic.Int64 // when the current interval ends (Unix ms); 0 before the first exit
	// skipBefore drops the samples of calls started at or before it: those
	// admitted before a probe began (they ran at the old concurrency) and
	// those admitted during it (they ran at the probe's).
	skipBefore atomic.Int64
	probing    atomic.Bool
	minRTT     atomic.Uint64 // float64 bits: the unloaded response time in ms; 0 unknown
	peak       atomic.Int64  // most calls in flight since the last recomputation

	mu      sync.Mutex
	windows [2]window
	idx     int     // windows[idx] is cur
	acc     sums    // samples not yet acted on
	accPeak int64   // peak in flight over them
	accFrom int64   // when acc began
	est     float64 // the limit, unrounded
	saved   float64 // the limit to go back to after a probe
	started int64   // when the probe began
	due     int64   // when the next probe begins
	probes  uint64  // probes begun, for the jitter
	seed    uint64
}

// maxCarry is how many sample intervals may pass before the limiter acts
// on fewer samples than MinSamples.
const maxCarry = 10

func newLimiter(r *Rule) *limiter {
	l := &limiter{seed: hash(r.Resource), windows: [2]window{newWindow(), newWindow()}}
	l.rule.Store(r)
	l.cur.Store(&l.windows[0])
	// A limiter begins with a probe: it knows nothing of the resource's
	// unloaded response time, and every calculation needs it.
	l.est = float64(r.InitialLimit)
	l.saved = l.est
	l.probing.Store(true)
	l.limit.Store(int64(r.MinLimit))
	return l
}

// setRule puts a reloaded rule in force, keeping what the limiter learnt
// within the rule's new bounds.
func (l *limiter) setRule(r *Rule) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur := l.rule.Load(); cur != nil && *cur == *r {
		// The same rule reloaded: BlockError.Rule and the block log's key
		// stay the same, so the reload starts no new block-log line.
		r = cur
	}
	l.rule.Store(r)
	l.est = l.clamp(r, l.est)
	l.saved = l.clamp(r, l.saved)
	if l.probing.Load() {
		l.limit.Store(int64(r.MinLimit))
	} else {
		l.limit.Store(round(l.est))
	}
}

// acquire takes a slot if one is free.
func (l *limiter) acquire() bool {
	for {
		n := l.inFlight.Load()
		if n >= l.limit.Load() {
			return false
		}
		if l.inFlight.CompareAndSwap(n, n+1) {
			l.notePeak(n + 1)
			return true
		}
	}
}

func (l *limiter) notePeak(n int64) {
	for {
		p := l.peak.Load()
		if n <= p || l.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

// release gives back a call's slot; rt >= 0 is its response time in ms, to
// learn from, when it started at start; rt < 0 teaches nothing. stripe is
// the call's processor stripe.
func (l *limiter) release(start, rt, now int64, stripe int) {
	l.inFlight.Add(-1)
	if rt >= 0 && start > l.skipBefore.Load() {
		l.cur.Load().add(stripe, rt)
	}
	if now >= l.next.Load() {
		l.update(now)
	}
}

// update ends the sample interval if it is over: the samples go to the
// probe or to a recomputation of the limit.
func (l *limiter) update(now int64) {
	if !l.mu.TryLock() {
		return // another call is at it
	}
	defer l.mu.Unlock()
	r := l.rule.Load()
	next := l.next.Load()
	if next == 0 { // the first exit starts the clock
		l.next.Store(now + int64(r.SampleIntervalMs))
		l.started, l.accFrom = now, now
		return
	}
	if now < next {
		return
	}
	l.next.Store(now + int64(r.SampleIntervalMs))
	done := &l.windows[l.idx]
	l.idx ^= 1
	fresh := &l.windows[l.idx]
	l.acc.add(fresh.take()) // stragglers that added to it after it was taken
	l.cur.Store(fresh)
	l.acc.add(done.take())
	l.accPeak = max(l.accPeak, l.peak.Swap(l.inFlight.Load()))
	if l.acc.n == 0 {
		l.accFrom = now // idle: the carry counts from the first sample, not from the last update
	}

	if l.probing.Load() {
		l.probe(r, now)
		return
	}
	if estimator.effective(l.acc) < float64(r.MinSamples) && now-l.accFrom < maxCarry*int64(r.SampleIntervalMs) {
		return // too few samples yet: carry them over
	}
	l.recompute(r, now)
	if now >= l.due {
		l.beginProbe(r, now)
	}
}

// recompute is the gradient step: the limit scales by how far the calls'
// response time is from the tolerated one, between half and double.
func (l *limiter) recompute(r *Rule, now int64) {
	defer l.resetAcc(now)
	sample := estimator.mean(l.acc)
	minRTT := l.MinRTT()
	if sample <= 0 || minRTT <= 0 {
		return // nothing measurable on a millisecond clock
	}
	g := min(max(r.RTTTolerance*minRTT/sample, 0.5), 2)
	est := l.est * g
	if est > l.est && float64(l.accPeak)*2 < l.est {
		est = l.est // the callers, not the limit, hold the calls back: a higher limit would be untested
	}
	if g < 1 && l.est <= float64(r.MinLimit) {
		// At the floor and still slow: no queue of ours is left to blame,
		// so the resource itself became slower. Its unloaded time is what
		// the floor measures.
		l.setMinRTT(sample)
	}
	l.est = l.clamp(r, est)
	l.limit.Store(round(l.est))
}

// beginProbe drops the limit to MinLimit to measure the unloaded response
// time: calls admitted from now on run with at most MinLimit in flight.
func (l *limiter) beginProbe(r *Rule, now int64) {
	l.saved = l.est
	l.started = now
	l.probing.Store(true)
	l.skipBefore.Store(now)
	l.limit.Store(int64(r.MinLimit))
	l.resetAcc(now)
}

// probeLimitMs is how long a probe lasts at most: long enough for a slow
// resource to give a few samples at MinLimit, short enough that the probe
// costs little of its capacity.
func probeLimitMs(r *Rule) int64 { return max(2000, 20*int64(r.SampleIntervalMs)) }

// probe ends the probe once it has ProbeSamples effective samples, or its
// time is up with something measured; the limit goes back to what it was.
func (l *limiter) probe(r *Rule, now int64) {
	enough := estimator.effective(l.acc) >= float64(r.ProbeSamples)
	if !enough && now-l.started < probeLimitMs(r) {
		return
	}
	if m := estimator.mean(l.acc); m > 0 {
		l.setMinRTT(m)
	}
	l.probing.Store(false)
	l.skipBefore.Store(now)
	l.est = l.clamp(r, l.saved)
	l.limit.Store(round(l.est))
	l.probes++
	// Up to 10% early, so that instances started together drift apart.
	jitter := float64(splitmix(l.seed+l.probes)>>11) / (1 << 53) * 0.1
	l.due = now + int64(float64(r.ProbeIntervalMs)*(1-jitter))
	l.resetAcc(now)
}

func (l *limiter) resetAcc(now int64) {
	l.acc, l.accPeak, l.accFrom = sums{}, 0, now
}

func (l *limiter) clamp(r *Rule, v float64) float64 {
	return min(max(v, float64(r.MinLimit)), float64(r.MaxLimit))
}

func (l *limiter) setMinRTT(ms float64) { l.minRTT.Store(math.Float64bits(ms)) }

// MinRTT is the unloaded response time the limiter measured, in ms; 0
// until it has one.
func (l *limiter) MinRTT() float64 { return math.Float64frombits(l.minRTT.Load()) }

func round(v float64) int64 { return max(1, int64(math.Round(v))) }

// hash is FNV-1a, the seed of a resource's probe jitter.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
