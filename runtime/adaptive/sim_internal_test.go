package adaptive

import (
	"container/heap"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The simulator: a service with `cores` workers shared by the calls in
// flight (processor sharing). Up to `cores` calls in flight each run at
// full speed; past that each slows in proportion, and a contention
// overhead (locks, cache misses, GC) makes the whole service do less work
// the deeper it is overloaded, so that without a limit its goodput falls
// as its latency grows. Arrivals are open-loop (Poisson): callers do not
// wait for each other. Every call goes through runtime.Entry and Exit on a
// hand-stepped clock, from event to event: no sleeps, the same numbers on
// every run.

// simL0 is a real call's mean work, in ms: its unloaded response time.
const simL0 = 20.0

// simOverhead is the contention overhead: with n calls in flight past
// cores, the service does 1/(1+simOverhead*(n-cores)/cores) of its work.
const simOverhead = 0.1

type job struct {
	tag    float64 // virtual time at which it is done (wall time for a held call)
	start  float64
	cheap  bool
	caller bool // a closed-loop caller's: it calls again when this one ends
	e      *runtime.SentinelEntry
}

type jobs []*job

func (h jobs) Len() int           { return len(h) }
func (h jobs) Less(i, j int) bool { return h[i].tag < h[j].tag }
func (h jobs) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *jobs) Push(x any)        { *h = append(*h, x.(*job)) }
func (h *jobs) Pop() any {
	old := *h
	j := old[len(old)-1]
	*h = old[:len(old)-1]
	return j
}

// phase is a stretch of simulated time with its own load and capacity.
type phase struct {
	secs       float64
	cores      float64
	rate       float64 // real calls arriving per second
	cheapRate  float64 // cheap (no-op) calls per second
	cheapWork  float64 // ms of work each
	slowdown   float64 // real calls' work is simL0 times this; 0 means 1
	expWork    bool    // work exponentially distributed (mean simL0) rather than within ±25%
	record     bool    // count this phase's calls in the results
	settleSecs float64 // results start this long after the phase began
	// callers are closed-loop callers of real calls, each calling again as
	// soon as its call ends, or a call's time after a refusal.
	callers int
	// heldRate calls a second hold a slot for heldMs of wall time without
	// working (a trickled body, a slow client): they slow no one else.
	heldRate float64
	heldMs   float64
	// heldRetry has a refused held call try again a millisecond later,
	// until it is admitted: a hostile caller that presses for slots.
	heldRetry bool
}

type simResult struct {
	latencies  []float64 // of admitted real calls completed (and those still in flight at the end, at their age)
	completed  int       // real calls completed in the recorded part
	recordSecs float64
	offered    int // real calls made in the recorded part, refused or not
	blocked    int
	limits     []sample // the limit every 100ms
}

type sample struct {
	t      float64 // ms since the start
	limit  int64
	probe  bool
	minRTT float64
}

func (r *simResult) p99() float64 {
	s := slices.Clone(r.latencies)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[int(math.Ceil(0.99*float64(len(s))))-1]
}

// goodput is the real calls completed per second of recorded time.
func (r *simResult) goodput() float64 { return float64(r.completed) / r.recordSecs }

// refused is the share of real calls refused in the recorded part.
func (r *simResult) refused() float64 { return float64(r.blocked) / float64(max(r.offered, 1)) }

// sim runs the phases on resource, which the test's rules protect; each
// phase gets its own result.
func sim(t *testing.T, resource string, seed uint64, phases ...phase) []*simResult {
	t.Helper()
	clk := clocktest.Install(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	ctx := context.Background()
	var (
		now   float64 // ms
		v     float64 // virtual time: work done by each call in flight
		queue jobs
		out   []*simResult
		// Closed-loop callers' next calls (tag: when), and calls held
		// without working (tag: when they end); both last across phases.
		callers, held jobs
		nCallers      int
	)
	advance := func(to float64) {
		d := time.Duration(to*1e6) - time.Duration(now*1e6)
		if d > 0 {
			clk.Advance(d)
		}
		now = to
	}
	var begin float64
	for _, ph := range phases {
		res := &simResult{}
		out = append(out, res)
		end := begin + ph.secs*1000
		from := begin + ph.settleSecs*1000
		res.recordSecs = ph.secs - ph.settleSecs
		speed := func() float64 { // work per ms each call in flight gets
			n := float64(len(queue))
			if n <= ph.cores {
				return 1
			}
			return ph.cores / n / (1 + simOverhead*(n-ph.cores)/ph.cores)
		}
		total := ph.rate + ph.cheapRate
		nextArrival := math.Inf(1)
		if total > 0 {
			nextArrival = now + rng.ExpFloat64()/total*1000
		}
		nextHeld := math.Inf(1)
		if ph.heldRate > 0 {
			nextHeld = now + rng.ExpFloat64()/ph.heldRate*1000
		}
		for ; nCallers < ph.callers; nCallers++ {
			heap.Push(&callers, &job{tag: now + rng.Float64()*simL0})
		}
		work := func() float64 {
			if ph.expWork {
				return simL0 * rng.ExpFloat64() * max(ph.slowdown, 1)
			}
			return simL0 * (0.75 + 0.5*rng.Float64()) * max(ph.slowdown, 1)
		}
		call := func(cheap, caller bool) {
			w := work()
			if cheap {
				w = ph.cheapWork
			}
			if !cheap && now >= from {
				res.offered++
			}
			e, b := runtime.Entry(ctx, resource)
			switch {
			case b == nil:
				heap.Push(&queue, &job{tag: v + w, start: now, cheap: cheap, caller: caller, e: e})
			case !cheap && now >= from:
				res.blocked++
			}
			if b != nil && caller {
				heap.Push(&callers, &job{tag: now + work()})
			}
		}
		// hold makes n held calls; with heldRetry, those refused try again
		// a millisecond later.
		pending, nextRetry := 0, math.Inf(1)
		hold := func(n int) {
			for range n {
				e, b := runtime.Entry(ctx, resource)
				switch {
				case b == nil:
					heap.Push(&held, &job{tag: now + ph.heldMs, start: now, cheap: true, e: e})
				case ph.heldRetry:
					pending++
				}
			}
			nextRetry = math.Inf(1)
			if pending > 0 {
				nextRetry = now + 1
			}
		}
		nextSample := begin
		for now < end {
			tNext := min(nextArrival, nextHeld, nextRetry, end, nextSample)
			if len(queue) > 0 {
				tNext = min(tNext, now+(queue[0].tag-v)/speed())
			}
			if len(callers) > 0 {
				tNext = min(tNext, callers[0].tag)
			}
			if len(held) > 0 {
				tNext = min(tNext, held[0].tag)
			}
			v += (tNext - now) * speed()
			advance(tNext)
			switch {
			case len(queue) > 0 && queue[0].tag <= v+1e-9:
				j := heap.Pop(&queue).(*job)
				j.e.Exit()
				if !j.cheap && j.start >= from && ph.record {
					res.latencies = append(res.latencies, now-j.start)
					res.completed++
				}
				if j.caller {
					heap.Push(&callers, &job{tag: now})
				}
			case len(held) > 0 && held[0].tag <= now:
				heap.Pop(&held).(*job).e.Exit()
			case now >= nextSample && nextSample < end:
				for _, st := range States() {
					if st.Resource == resource {
						res.limits = append(res.limits, sample{t: now, limit: st.Limit, probe: st.Probing, minRTT: st.MinRTTMs})
					}
				}
				nextSample += 100
			case len(callers) > 0 && callers[0].tag <= now:
				heap.Pop(&callers)
				call(false, true)
			case now >= nextHeld:
				hold(1)
				nextHeld = now + rng.ExpFloat64()/ph.heldRate*1000
			case now >= nextRetry:
				n := pending
				pending = 0
				hold(n)
			case now >= nextArrival:
				call(rng.Float64()*total >= ph.rate, false)
				nextArrival = now + rng.ExpFloat64()/total*1000
			}
		}
		begin = end
	}
	// Calls still in flight at the end count at their age: a service that
	// never answers must not look fast.
	last := out[len(out)-1]
	for _, j := range queue {
		if !j.cheap && phases[len(phases)-1].record {
			last.latencies = append(last.latencies, now-j.start)
		}
		j.e.Exit()
	}
	for _, j := range held {
		j.e.Exit()
	}
	return out
}

// steady is the spread of the limit over samples, (max-min)/mean, leaving
// out the probes (the limit drops to minLimit on purpose then).
func steady(ss []sample) (lo, hi int64, spread float64) {
	lo, hi = math.MaxInt64, 0
	var sum float64
	n := 0
	for _, s := range ss {
		if s.probe {
			continue
		}
		lo, hi = min(lo, s.limit), max(hi, s.limit)
		sum += float64(s.limit)
		n++
	}
	return lo, hi, float64(hi-lo) / (sum / float64(n))
}

// minRTTs is the range of the unloaded time the limiter reported, once it
// had one.
func minRTTs(ss []sample) (lo, hi float64) {
	lo = math.Inf(1)
	for _, s := range ss {
		if s.minRTT > 0 {
			lo, hi = min(lo, s.minRTT), max(hi, s.minRTT)
		}
	}
	return lo, hi
}

// firstWithin is when (ms from the first sample) the limit first came
// within 20% of best and stayed there to the end, probes aside; -1 never.
func firstWithin(ss []sample, best float64) float64 {
	at := -1.0
	for _, s := range ss {
		if s.probe {
			continue
		}
		in := math.Abs(float64(s.limit)-best) <= 0.2*best
		if !in {
			at = -1
		} else if at < 0 {
			at = s.t - ss[0].t
		}
	}
	return at
}

func loadAdaptive(t *testing.T, rules ...Rule) {
	t.Helper()
	if err := LoadRules(rules); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = LoadRules(nil) })
}

func loadFlow(t *testing.T, rules ...flow.Rule) {
	t.Helper()
	if err := flow.LoadRules(rules); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
}
