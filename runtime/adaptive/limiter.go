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

	rule atomic.Pointer[Rule] // with defaults filled in
	// limit bounds the calls in flight. While the limiter probes it stays
	// where it was, and the probe's calls, those started since it began,
	// are held to MinLimit of their own (probeInFlight).
	limit atomic.Int64
	cur   atomic.Pointer[window]
	next  atomic.Int64 // when the current interval ends (Unix ms); 0 before the first exit
	// skipBefore drops the samples of calls started at or before it: those
	// admitted before a probe began (they ran at the old concurrency) and
	// those admitted during it (they ran at the probe's).
	skipBefore atomic.Int64
	probing    atomic.Bool
	// The probe's calls are those started after probeFrom and before
	// probeTo (math.MaxInt64 while it runs): what Check and Exit both know
	// of a call, so that each call the probe counts is counted out once.
	probeFrom     atomic.Int64
	probeTo       atomic.Int64
	probeInFlight atomic.Int64
	minRTT        atomic.Uint64 // float64 bits: the unloaded response time in ms; 0 unknown
	peak          atomic.Int64  // most calls in flight since the last recomputation

	mu      sync.Mutex
	windows [2]window // allocated by the first exit: a rule whose resource is never called costs no histograms
	idx     int       // windows[idx] is cur
	acc     histogram // samples not yet acted on
	accPeak int64     // peak in flight over them
	accFrom int64     // when acc began
	est     float64   // the limit, unrounded
	saved   float64   // the limit to go back to after a probe
	started int64     // when the probe began
	due     int64     // when the next probe begins
	probes  uint64    // probes begun, for the jitter
	seed    uint64
}

// maxCarry is how many sample intervals may pass before the limiter acts
// on fewer samples than MinSamples.
const maxCarry = 10

func newLimiter(r *Rule) *limiter {
	l := &limiter{seed: hash(r.Resource)}
	l.rule.Store(r)
	// A limiter begins with a probe: it knows nothing of the resource's
	// unloaded response time, and every calculation needs it.
	l.est = float64(r.InitialLimit)
	l.saved = l.est
	l.probeTo.Store(math.MaxInt64)
	l.probing.Store(true)
	l.limit.Store(round(l.est))
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
	l.limit.Store(round(l.est))
}

// acquire takes a slot for a call started at start, if one is free.
//
// While the limiter probes, the call must also find one of the probe's
// MinLimit slots free: calls admitted before the probe do not take them,
// so a few calls that hold their slots for long (a hostile caller's
// trickled bodies) cannot stall the probe, and with it every caller,
// until they end.
func (l *limiter) acquire(start int64) bool {
	probe := l.probing.Load()
	if probe && !l.acquireProbeSlot(start) {
		return false
	}
	for {
		n := l.inFlight.Load()
		if n >= l.limit.Load() {
			if probe {
				l.probeInFlight.Add(-1)
			}
			return false
		}
		if l.inFlight.CompareAndSwap(n, n+1) {
			l.notePeak(n + 1)
			return true
		}
	}
}

// acquireProbeSlot takes one of the probe's slots for a call started at
// start. A call started in the probe's first millisecond, or before it,
// gets none: Exit could not tell it from the calls admitted before.
func (l *limiter) acquireProbeSlot(start int64) bool {
	if start <= l.probeFrom.Load() {
		return false
	}
	floor := int64(l.rule.Load().MinLimit)
	for {
		n := l.probeInFlight.Load()
		if n >= floor {
			return false
		}
		if l.probeInFlight.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// isProbeCall reports whether a call started at start counts among the
// probe's calls in flight.
func (l *limiter) isProbeCall(start int64) bool {
	return start < l.probeTo.Load() && start > l.probeFrom.Load()
}

// shownLimit is the limit as a refusal and the dashboards show it: the
// probe's while the limiter probes.
func (l *limiter) shownLimit() int64 {
	if l.probing.Load() {
		return int64(l.rule.Load().MinLimit)
	}
	return l.limit.Load()
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
	if l.isProbeCall(start) {
		l.probeInFlight.Add(-1)
	}
	if w := l.cur.Load(); w != nil && rt >= 0 && start > l.skipBefore.Load() {
		w.add(stripe, rt)
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
		l.windows = [2]window{newWindow(), newWindow()}
		l.cur.Store(&l.windows[0])
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
	fresh.take(&l.acc) // stragglers that added to it after it was taken
	l.cur.Store(fresh)
	done.take(&l.acc)
	l.accPeak = max(l.accPeak, l.peak.Swap(l.inFlight.Load()))
	if l.acc.calls() == 0 {
		l.accFrom = now // idle: the carry counts from the first sample, not from the last update
	}

	if l.probing.Load() {
		l.probe(r, now)
		return
	}
	if estimator(&l.acc, l.MinRTT()).effective < float64(r.MinSamples) && now-l.accFrom < maxCarry*int64(r.SampleIntervalMs) {
		return // too few samples yet: carry them over
	}
	// At the floor and still slow, the probe measures the resource as it
	// now is, on ProbeSamples samples rather than one interval's few.
	if l.recompute(r, now) || now >= l.due {
		l.beginProbe(now)
	}
}

// recompute is the gradient step: the limit scales by how far the calls'
// response time is from the tolerated one, between half and double. It
// reports whether the calls are still too slow with the limit at
// MinLimit: then no queue of the limiter's is left to blame, the resource
// itself became slower, and its unloaded time must be measured again.
func (l *limiter) recompute(r *Rule, now int64) (slowAtFloor bool) {
	defer l.resetAcc(now)
	minRTT := l.MinRTT()
	sample := estimator(&l.acc, minRTT).rtt
	if sample <= 0 || minRTT <= 0 {
		return false // nothing measurable on a millisecond clock
	}
	g := min(max(r.RTTTolerance*minRTT/sample, 0.5), 2)
	est := l.est * g
	if est > l.est && float64(l.accPeak)*2 < l.est {
		est = l.est // the callers, not the limit, hold the calls back: a higher limit would be untested
	}
	slowAtFloor = g < 1 && l.est <= float64(r.MinLimit)
	l.est = l.clamp(r, est)
	l.limit.Store(round(l.est))
	return slowAtFloor
}

// beginProbe starts measuring the unloaded response time: calls admitted
// from now on run with at most MinLimit of them in flight.
func (l *limiter) beginProbe(now int64) {
	l.saved = l.est
	l.started = now
	// A release that read the last probe's bounds may count one out of
	// the new probe's count: it admits one call more, once.
	l.probeFrom.Store(now)
	l.probeTo.Store(math.MaxInt64)
	l.probeInFlight.Store(0)
	l.probing.Store(true)
	l.skipBefore.Store(now)
	l.resetAcc(now)
}

// probeLimitMs is how long a probe lasts at most: long enough for a slow
// resource to give a few samples at MinLimit, short enough that the probe
// costs little of its capacity.
func probeLimitMs(r *Rule) int64 { return max(2000, 20*int64(r.SampleIntervalMs)) }

// probe ends the probe once it has ProbeSamples effective samples, or its
// time is up with something measured; the limit goes back to what it was.
func (l *limiter) probe(r *Rule, now int64) {
	// The unloaded time measured last bounds the samples' weights: a
	// probe the hostile calls crowd cannot move it further than their
	// count does.
	m := estimator(&l.acc, l.MinRTT())
	if m.effective < float64(r.ProbeSamples) && now-l.started < probeLimitMs(r) {
		return
	}
	if m.rtt > 0 {
		l.setMinRTT(m.rtt)
	}
	l.probeTo.Store(now)
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
	l.acc, l.accPeak, l.accFrom = histogram{}, 0, now
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
