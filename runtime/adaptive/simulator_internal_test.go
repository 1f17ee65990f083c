package adaptive

import (
	"io"
	"log/slog"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func init() {
	runtime.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil))) // blocks are logged at info
}

// The simulated service: 40 workers, 20 ms a call, so 2,000 calls a second
// at best, and 40 calls in flight is the knee, the best limit: fewer leave
// workers idle, more only queue.
const (
	simCores    = 40.0
	simCapacity = simCores / simL0 * 1000
)

// unloadedP99 is the p99 response time of the service at a tenth of its
// capacity, with no rule: the latency every test compares with.
func unloadedP99(t *testing.T) float64 {
	t.Helper()
	res := sim(t, "sim-unloaded", 7, phase{secs: 5, cores: simCores, rate: simCapacity / 10, record: true})
	return res[0].p99()
}

// Under three times the load it can serve, the adaptive limit keeps the
// admitted calls' p99 within twice the unloaded one and the goodput within
// 10% of capacity. Without a limit the queue grows without bound and
// goodput falls; a thread limit tuned for the service as it was lets
// latency double once the service loses half its capacity.
func TestUnderThreeTimesOverloadTheLimitKeepsLatencyAndGoodput(t *testing.T) {
	p99 := unloadedP99(t)
	t.Logf("unloaded p99 %.1f ms", p99)
	overload := simCapacity * 3

	loadAdaptive(t, Rule{Resource: "sim-overload"})
	res := sim(t, "sim-overload", 1,
		phase{secs: 10, cores: simCores, rate: overload, record: true, settleSecs: 2},
		phase{secs: 10, cores: simCores / 2, rate: overload, record: true, settleSecs: 2})
	for i, r := range res {
		capacity := simCapacity / float64(i+1)
		t.Logf("adaptive, capacity %.0f/s: p99 %.1f ms, goodput %.0f/s", capacity, r.p99(), r.goodput())
		assert.LessOrEqual(t, r.p99(), 2*p99, "p99 of admitted calls")
		assert.GreaterOrEqual(t, r.goodput(), 0.9*capacity, "goodput")
	}

	none := sim(t, "sim-overload-none", 1, phase{secs: 10, cores: simCores, rate: overload, record: true, settleSecs: 2})[0]
	t.Logf("no limit: p99 %.1f ms, goodput %.0f/s", none.p99(), none.goodput())
	assert.Greater(t, none.p99(), 100*p99, "without a limit the queue grows for as long as the overload lasts")
	assert.Less(t, none.goodput(), 0.5*simCapacity, "and contention eats the goodput")

	loadFlow(t, flow.Rule{Resource: "sim-overload-fixed", Grade: flow.GradeThread, Count: simCores})
	fixed := sim(t, "sim-overload-fixed", 1,
		phase{secs: 10, cores: simCores, rate: overload, record: true, settleSecs: 2},
		phase{secs: 10, cores: simCores / 2, rate: overload, record: true, settleSecs: 2})
	t.Logf("fixed thread limit %v: p99 %.1f ms, goodput %.0f/s; at half capacity p99 %.1f ms, goodput %.0f/s",
		simCores, fixed[0].p99(), fixed[0].goodput(), fixed[1].p99(), fixed[1].goodput())
	assert.LessOrEqual(t, fixed[0].p99(), 2*p99, "the fixed limit is right for the capacity it was tuned for")
	assert.Greater(t, fixed[1].p99(), 2*p99, "and too high for half of it")
}

// When the service loses half its capacity the limit comes within 20% of
// the new best (the new knee) within 5 simulated seconds, and as fast when
// the capacity comes back; settled, it moves less than 20%.
func TestTheLimitFollowsCapacityDownAndUp(t *testing.T) {
	loadAdaptive(t, Rule{Resource: "sim-follow"})
	overload := simCapacity * 3
	res := sim(t, "sim-follow", 2,
		phase{secs: 10, cores: simCores, rate: overload, record: true},
		phase{secs: 15, cores: simCores / 2, rate: overload, record: true},
		phase{secs: 15, cores: simCores, rate: overload, record: true})
	for i, r := range res[1:] {
		best := simCores / 2
		if i == 1 {
			best = simCores
		}
		at := firstWithin(r.limits, best)
		settled := r.limits[len(r.limits)/3:]
		lo, hi, spread := steady(settled)
		t.Logf("capacity for a limit of %v: within 20%% after %.0f ms; settled %d..%d (spread %.0f%%)", best, at, lo, hi, spread*100)
		require.GreaterOrEqual(t, at, 0.0, "the limit never settled within 20%% of %v", best)
		assert.LessOrEqual(t, at, 5000.0, "ms to come within 20%% of %v", best)
		assert.LessOrEqual(t, spread, 0.2, "steady-state oscillation")
	}
}

// Where each call's work varies as much as its mean (exponentially
// distributed), a window's time-weighted mean is noisy, and so is the
// probe's: at the default tolerance of 1.1 a probe that reads low sinks
// the limit to the floor until the floor re-measures it (goodput 42% of
// capacity in this run). A tolerance of 1.25 absorbs the noise: the limit
// wanders around the knee, but goodput and latency hold.
func TestWithHighlyVariableWorkATolerance125Holds(t *testing.T) {
	unloaded := sim(t, "sim-var-unloaded", 9, phase{secs: 5, cores: simCores, rate: simCapacity / 10, record: true, expWork: true})[0].p99()
	loadAdaptive(t, Rule{Resource: "sim-var", RTTTolerance: 1.25})
	overload := simCapacity * 3
	res := sim(t, "sim-var", 9,
		phase{secs: 10, cores: simCores, rate: overload, record: true, settleSecs: 2, expWork: true},
		phase{secs: 10, cores: simCores / 2, rate: overload, record: true, settleSecs: 2, expWork: true},
		phase{secs: 10, cores: simCores, rate: overload, record: true, settleSecs: 2, expWork: true})
	for i, r := range res {
		capacity := simCapacity
		if i == 1 {
			capacity /= 2
		}
		lo, hi, _ := steady(r.limits[len(r.limits)/3:])
		t.Logf("capacity %.0f/s: p99 %.1f ms (unloaded %.1f), goodput %.0f/s, limit %d..%d", capacity, r.p99(), unloaded, r.goodput(), lo, hi)
		assert.LessOrEqual(t, r.p99(), 2*unloaded)
		assert.GreaterOrEqual(t, r.goodput(), 0.85*capacity)
	}
}

// cheapWork is a no-op call's work: a cache hit, a health check.
const cheapWork = 0.02

// The flood tests simulate half the service (20 workers, 1,000 calls a
// second), to keep their millions of calls quick under the race detector.
const (
	floodCores    = simCores / 2
	floodCapacity = simCapacity / 2
)

// A caller flooding the resource with cheap calls, five for every real
// one, cannot push the limit above what the real calls bear: each
// sample weighs as much as the time its call held a slot, so the cheap
// calls neither lower the measured response time nor count as samples.
// With a per-call mean instead (what percentiles and plain means of
// response times do), the same flood drives the limit up until the real
// calls queue for several times their unloaded time.
func TestAFloodOfCheapCallsCannotRaiseTheLimit(t *testing.T) {
	p99 := unloadedP99(t)
	overload := floodCapacity * 3
	run := func(resource string) *simResult {
		loadAdaptive(t, Rule{Resource: resource})
		res := sim(t, resource, 3,
			phase{secs: 5, cores: floodCores, rate: overload},
			phase{secs: 10, cores: floodCores, rate: overload, cheapRate: overload * 5, cheapWork: cheapWork, record: true, settleSecs: 2})
		return res[1]
	}

	weighted := run("sim-flood")
	lo, hi, _ := steady(weighted.limits)
	t.Logf("time-weighted: limit %d..%d, real calls' p99 %.1f ms", lo, hi, weighted.p99())
	assert.LessOrEqual(t, float64(hi), 1.2*floodCores, "the limit stays within 20%% of what the real calls bear")
	assert.LessOrEqual(t, weighted.p99(), 2*p99)
	assert.GreaterOrEqual(t, weighted.goodput(), 0.8*floodCapacity, "real calls still get most of the capacity")

	useEstimator(t, perCallMedian)
	perCall := run("sim-flood-per-call")
	lo, hi, _ = steady(perCall.limits)
	t.Logf("per-call mean: limit %d..%d, real calls' p99 %.1f ms", lo, hi, perCall.p99())
	assert.Greater(t, float64(hi), 2*floodCores, "a per-call estimate lets the flood lift the limit")
	assert.Greater(t, perCall.p99(), 2*p99)
}

// A flood that runs through the probe cannot make the unloaded response
// time look shorter than the real calls' (which would cut the limit for
// everyone): the probe ends on effective samples, which cheap calls do not
// make up, and measures the real calls it admitted.
func TestAFloodDuringTheProbeDoesNotFakeTheUnloadedTime(t *testing.T) {
	overload := floodCapacity * 3
	loadAdaptive(t, Rule{Resource: "sim-flood-probe", ProbeIntervalMs: 5000})
	res := sim(t, "sim-flood-probe", 4,
		phase{secs: 12, cores: floodCores, rate: overload, cheapRate: overload * 5, cheapWork: cheapWork, record: true, settleSecs: 2})
	st := stateOf(t, "sim-flood-probe")
	t.Logf("min RTT %.1f ms after the probes, limits %v", st.MinRTTMs, res[0].limits[len(res[0].limits)-1])
	assert.InDelta(t, simL0, st.MinRTTMs, 0.15*simL0, "the probes measured the real calls")
	lo, hi, _ := steady(res[0].limits[len(res[0].limits)/2:])
	assert.GreaterOrEqual(t, float64(lo), 0.8*floodCores)
	assert.LessOrEqual(t, float64(hi), 1.2*floodCores)
}

// When the resource itself becomes slower (a dependency now takes twice
// as long), the limit first falls, as it would for a queue; at the floor
// the limiter re-measures the unloaded time, and the limit climbs back to
// the knee, long before the next periodic probe.
func TestASlowerResourceIsRemeasuredAtTheFloor(t *testing.T) {
	overload := simCapacity * 3
	loadAdaptive(t, Rule{Resource: "sim-slower"})
	res := sim(t, "sim-slower", 5,
		phase{secs: 5, cores: simCores, rate: overload},
		phase{secs: 15, cores: simCores, rate: overload, slowdown: 2, record: true, settleSecs: 8})
	at := firstWithin(res[1].limits, simCores)
	st := stateOf(t, "sim-slower")
	t.Logf("within 20%% of %v after %.0f ms; min RTT %.1f ms; p99 %.1f ms", simCores, at, st.MinRTTMs, res[1].p99())
	require.GreaterOrEqual(t, at, 0.0)
	assert.LessOrEqual(t, at, 10000.0, "ms: the climb from the floor waits for MinSamples at a low limit")
	assert.InDelta(t, 2*simL0, st.MinRTTMs, 0.2*2*simL0)
	assert.LessOrEqual(t, res[1].p99(), 2*2*24.9, "within twice the new unloaded p99")
}

// perCallMedian is Envoy's summary of a window: the median response
// time, each call counting once.
func perCallMedian(h *histogram, _ float64) summary {
	return h.median(func(int) float64 { return 1 })
}

// timeWeightedMean is the mean response time of the calls in flight,
// Σrt²/Σrt, each call weighted by its whole time: what this limiter read
// before it bounded the weights and took the median.
func timeWeightedMean(h *histogram, _ float64) summary {
	var sum, sumSq float64
	for b, c := range h {
		v := bucketMiddle(b)
		sum += float64(c) * v
		sumSq += float64(c) * v * v
	}
	if sum == 0 {
		return summary{}
	}
	return summary{rtt: sumSq / sum, effective: sum * sum / sumSq}
}

// useEstimator has the limiters read their samples with e until the test
// ends.
func useEstimator(t *testing.T, e func(*histogram, float64) summary) {
	saved := estimator
	estimator = e
	t.Cleanup(func() { estimator = saved })
}

func stateOf(t *testing.T, resource string) State {
	t.Helper()
	for _, s := range States() {
		if s.Resource == resource {
			return s
		}
	}
	t.Fatalf("no limiter for %q", resource)
	return State{}
}

// heldMs is how long a hostile caller's calls hold their slot: a body
// trickled in, a query chosen to be expensive somewhere else.
const heldMs = 1000

// Forty callers make real calls back to back, as many as the service has
// workers, so that it is never overloaded; one caller adds four calls a
// second that each hold a slot for a second without working (0.2% of the
// calls, 9% of the time in flight), and, in the second case, tries again
// every millisecond when refused, pressing for the probe's few slots. The
// service is no slower for the honest calls, so the limiter must refuse
// almost none of them (the probe of a minute costs some) and keep their
// unloaded time as its minRTT. When the honest calls do become slower
// (their work doubles), the limiter still follows, the hostile calls going
// on.
//
// Read by its time-weighted mean, as this limiter did before, the same
// window is five times slower than the honest calls: the limit collapses.
func TestAFewSlowCallsCannotCollapseTheLimit(t *testing.T) {
	// The held phase lasts past the first periodic probe, a minute in.
	run := func(resource string, retry bool, heldSecs float64, then ...phase) []*simResult {
		loadAdaptive(t, Rule{Resource: resource})
		held := phase{secs: heldSecs, settleSecs: 2, cores: simCores, callers: simCores,
			heldRate: 4, heldMs: heldMs, heldRetry: retry, record: true}
		return sim(t, resource, 6, append([]phase{held}, then...)...)
	}
	for _, tc := range []struct {
		name  string
		retry bool
	}{
		{"held calls", false},
		{"held calls pressing for slots", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource := "sim-" + tc.name
			doubled := phase{secs: 20, cores: simCores, callers: simCores, heldRate: 4, heldMs: heldMs, heldRetry: tc.retry,
				slowdown: 2, record: true}
			res := run(resource, tc.retry, 70, doubled)
			held, slower := res[0], res[1]
			lo, hi, _ := steady(held.limits)
			rttLo, rttHi := minRTTs(held.limits)
			t.Logf("honest calls refused %.2f%% (%d of %d), min RTT %.1f..%.1f ms, limit %d..%d, goodput %.0f/s, p99 %.1f ms",
				100*held.refused(), held.blocked, held.offered, rttLo, rttHi, lo, hi, held.goodput(), held.p99())
			assert.Less(t, held.refused(), 0.01, "honest calls refused")
			assert.InDelta(t, simL0, rttLo, 0.1*simL0, "the unloaded time is the honest calls'")
			assert.InDelta(t, simL0, rttHi, 0.1*simL0, "the unloaded time is the honest calls'")

			end := stateOf(t, resource)
			lo, hi, _ = steady(slower.limits[len(slower.limits)/2:])
			t.Logf("work doubled: min RTT %.1f ms, limit %d..%d over the last 10 s, goodput %.0f/s",
				end.MinRTTMs, lo, hi, slower.goodput())
			assert.InDelta(t, 2*simL0, end.MinRTTMs, 0.1*2*simL0, "the slower calls are measured")
			assert.GreaterOrEqual(t, float64(lo), simCores, "and the limit is back where the honest calls fit")
		})
	}

	useEstimator(t, timeWeightedMean)
	old := run("sim-held-mean", false, 20)[0]
	t.Logf("time-weighted mean: honest calls refused %.1f%%", 100*old.refused())
	assert.Greater(t, old.refused(), 0.2)
}
