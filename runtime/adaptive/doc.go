// Package adaptive is an adaptive concurrency limit: a rule that bounds a
// resource's calls in flight and finds the bound by itself, from the
// calls' response times, as TCP finds its window. Import it to register
// the slot.
//
//	adaptive.LoadRules([]adaptive.Rule{{Resource: "getOrder"}})
//
// Use it where the right thread count changes under you: a dependency
// that slows down, pods of different sizes, noisy neighbours. A fixed
// thread limit (a flow rule of grade 0) is too low when capacity grows,
// refusing work the service could do, and too high when it shrinks,
// letting queues and latency grow; this one follows. Where capacity is
// known and stable, a fixed limit is simpler and as good.
//
// # The algorithm
//
// A gradient controller with periodic probes of the unloaded response
// time, as Envoy's adaptive concurrency filter, reading response times by
// a median weighted by time, each call's weight bounded:
//
//   - Every SampleIntervalMs (100) the limiter takes the response times of
//     the calls that exited, and once it has MinSamples (20) effective
//     samples it computes gradient = RTTTolerance × minRTT / sampleRTT,
//     clamped to [0.5, 2], and limit = limit × gradient, within
//     [MinLimit, MaxLimit]. The limit settles where the calls take
//     RTTTolerance (1.1) times their unloaded time: at the knee of the
//     service, plus 10%. It does not rise while fewer than half the
//     limit's calls were in flight: the callers, not the limit, held the
//     calls back, and a higher limit would be untested.
//   - Every ProbeIntervalMs (60 s, less up to 10% jitter) and at the start,
//     the limiter probes: the calls that start from then on are held to
//     MinLimit (3) in flight until ProbeSamples (50) effective samples of
//     them are in (for at most the longer of 2 s and 20 intervals); their
//     response time is minRTT, the unloaded time. Calls admitted before
//     the probe take none of its slots, so calls that hold theirs for long
//     cannot stall it, and the limit in force still bounds every call in
//     flight. Calls admitted before the probe, and during it, are not
//     samples of the intervals around it.
//   - At the floor: if the calls are still slower than the tolerance
//     allows with the limit at MinLimit, no queue of the limiter's is left
//     to blame; the resource itself became slower, and the limiter probes
//     at once to measure its new unloaded time.
//
// sampleRTT and minRTT are the median of the response times, each call
// weighted by its own time, but by no more than 4 × minRTT. Weighted by
// time, the distribution is that of the calls a random instant finds in
// flight, the ones an in-flight limit governs, and a call that takes no
// time weighs nothing: a flood of cheap calls (cache hits, health checks,
// a hostile caller's no-ops) can neither make the service look unloaded
// nor end a probe early or fake a short minRTT. Bounded, a call held for
// a second (a trickled body, a slow reader) weighs what a call of
// 4 × minRTT does, and the median moves only when more than half the
// weight is slow: about one slow call for every four real ones, where a
// mean weighted by time is moved by one in five hundred. Effective samples
// are (Σw)²/Σw², Kish's effective sample size for these weights. The
// times are counted in a histogram of 208 buckets (one a millisecond under
// 32 ms, then sixteen to each power of two, up to a minute): one atomic
// add a call, on the call's processor stripe.
//
// Response times are on the runtime's millisecond clock. Calls that a
// check made wait (a throttling flow rule, this rule's own queue) teach
// nothing: their wait is not the resource's work, and learning from it
// would make the limiter chase its own queue. A resource whose calls take
// well under a millisecond measures nothing: its limit stays at
// InitialLimit.
//
// # Compared with Envoy and Netflix
//
//   - Envoy's gradient controller: the same gradient, clamp and probe (its
//     concurrency_update_interval, min_rtt_calc_params interval,
//     request_count and min_concurrency are SampleIntervalMs,
//     ProbeIntervalMs, ProbeSamples and MinLimit; its buffer, 25%, is
//     RTTTolerance-1). Envoy summarises samples with a percentile (p50)
//     counting each request once, which a flood of cheap requests owns;
//     its probe pins every request in flight, so requests held from
//     before stall it; and it adds sqrt(limit) of headroom at every
//     update, which settles small limits well above the knee (for a knee
//     of 40, at 1.25×40+√50 ≈ 57). This limiter weighs by time within a
//     bound, counts only the probe's own calls against its floor, and
//     adds no headroom.
//   - Netflix's Gradient2: compares a short-term with an exponentially
//     smoothed long-term RTT instead of probing, so sustained queueing
//     slowly becomes the baseline; the probe here measures the unloaded
//     time instead of assuming it. Vegas estimates the queue as
//     limit × (1 − minRTT/RTT) against thresholds growing with log(limit)
//     and moves the limit by steps of log(limit): slower to follow a
//     halved capacity (many steps where the gradient takes one or two).
//   - failsafe-go's adaptive limiter: Vegas-style thresholds on a recent
//     quantile against a baseline, with correlations of latency and
//     throughput to tell overload from noise.
//
// In a simulated service of 40 workers at 20 ms a call (2,000 calls/s)
// under 3× overload, the defaults settle the limit at 42 to 45, the
// admitted calls' p99 at 28 ms (unloaded: 25 ms) and goodput at 99% of
// capacity; when capacity halves the limit is within 20% of the new knee
// in 0.2 s, and back in 0.5 s when it returns. Without a limit the p99
// grows for as long as the overload lasts; a thread limit of 40 lets it
// reach 54 ms once capacity halves.
//
// # The rule
//
// Rule's JSON fields are resource, minLimit, maxLimit, initialLimit,
// rttTolerance, sampleIntervalMs, minSamples, probeIntervalMs,
// probeSamples, maxQueueingTimeMs and dryRun; each zero field takes its
// default (the Default* constants). One rule per resource. A call over the
// limit is refused with runtime.BlockAdaptive, the *Rule, and the limit as
// the triggered value; with MaxQueueingTimeMs, it first waits up to that
// long for a slot, looking every millisecond.
//
// A resource that keeps its rule across reloads keeps its limiter: the
// calls in flight, the limit learnt (brought within the new bounds) and
// minRTT. States reports every limiter: its limit, calls in flight,
// minRTT and whether it probes.
//
// # In the chain
//
// The slot runs after flow rules (runtime.OrderAdaptive, between flow and
// the circuit breakers): a call a flow rule refuses never holds a slot,
// and one it throttles waits before it takes one. Circuit breakers come
// after: a call this rule refuses never reaches a half-open breaker's
// probe, and a call a breaker refuses gives its slot back at once.
//
// # Dry run
//
// With DryRun the limiter learns and counts the calls it would have
// refused (runtime.Resource.DryRunBlockCount with runtime.BlockAdaptive,
// the block log's dry-run lines) but admits them all, and nothing waits.
// It cannot lower the concurrency to probe, so its minRTT is measured at
// the load of the moment and its limit is an estimate on the high side.
//
// # Cost
//
// Check is one compare-and-swap on the calls in flight (two while the
// limiter probes); Exit a decrement and one atomic add to the histogram. Once per interval the call that exits first takes
// a lock, with TryLock, to recompute: no call waits for it.
package adaptive
