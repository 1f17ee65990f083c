// Package degrade is Sentinel's circuit breaking: the DegradeSlot and
// Sentinel 2.0's DefaultCircuitBreakerSlot, with Java Sentinel 1.8's
// breaker state machine and arithmetic. Import it to register both slots.
//
// # Rules
//
//	degrade.LoadRules([]degrade.Rule{{
//		Resource: "getOrder", Grade: degrade.ErrorRatio, Count: 0.5,
//		TimeWindow: 10, MinRequestAmount: 20, StatIntervalMs: 1000,
//	}})
//
// Rule has Java's DegradeRule JSON fields, and Java's defaults for fields
// absent from JSON: grade 0, minRequestAmount 5, slowRatioThreshold 1.0,
// statIntervalMs 1000. In Go code a zero MinRequestAmount or StatIntervalMs
// means that default; a zero SlowRatioThreshold is the valid threshold 0.0.
// grade takes Java's code or a name ("RT", "ErrorRatio", "ExceptionCount",
// ...). limitApp is accepted and unused, as in Java.
//
// LoadRules checks every rule as Java's DegradeRuleManager.isValidRule does
// (resource set; count >= 0, and <= 1 for an error ratio; timeWindow > 0;
// minRequestAmount and statIntervalMs > 0; slowRatioThreshold in [0, 1]
// for slow-ratio rules; a known grade; a valid regex), and also refuses NaN
// and infinite numbers and ints beyond Java's int range. Where Java skips
// an invalid rule with a warning, LoadRules refuses the whole set and
// returns a runtime.RuleErrors naming each bad rule's index, field and
// reason; the rules in force stay. An explicit 0 in JSON for
// minRequestAmount or statIntervalMs is refused as Java refuses it.
//
// # Breakers
//
// Every rule gets a breaker for each resource it applies to; a call must
// pass every breaker of its resource. A breaker counts the outcomes of the
// calls it admitted in one tumbling bucket of statIntervalMs (Java's
// LeapArray of one bucket: buckets start at multiples of the interval). A
// call is bad when it failed (error grades: an error recorded with
// SetError, WithError or a generated wrapper) or when its response time,
// exit time minus entry time on the runtime's clock, exceeds count ms
// rounded as Math.round (slow-ratio grade). Calls blocked by any slot are
// not counted.
//
//   - CLOSED: every call passes. When a call completes and the bucket holds
//     at least minRequestAmount calls, the breaker opens if the measure (bad
//     calls / calls, or bad calls for the error-count grade) is strictly
//     above the threshold (count, or slowRatioThreshold for slow calls); a
//     slow ratio of exactly 1.0 against a threshold of 1.0 opens too, as
//     in Java.
//   - OPEN: every call is blocked (runtime.BlockDegrade, the breaker's
//     *Rule) until timeWindow seconds after it opened; then one call, won
//     by compare-and-swap, passes as the probe and the breaker is HALF_OPEN.
//   - HALF_OPEN: every other call is blocked. The probe's completion closes
//     the breaker and empties its bucket when the probe was good, and opens
//     it again for another timeWindow when it was bad. A probe blocked by a
//     later slot (or by another breaker of the same resource) sends the
//     breaker back to OPEN without moving the retry time, so the next call
//     probes again (Java's fix for issue #1638).
//
// One deliberate difference: in Java any call that completes while a
// breaker is HALF_OPEN decides its fate, even one admitted long before the
// breaker opened; here only the probe does. The retry time is also written
// before the state changes, so that no call can see OPEN with the previous
// period's retry time and probe early (a race in Java).
//
// Reloading a rule equal to one in force (every field equal once defaults
// are filled in) keeps its breakers and their state, including the
// per-resource breakers of regex and default rules; a changed rule starts
// closed. (Java rebuilds every regex rule's breakers, closed, when any
// degrade rule changes: an edit to one rule would close the open breakers
// of others.)
//
// # Regex and default rules
//
// A rule with Regex set applies to every resource whose whole name its
// pattern matches, and each such resource gets a fresh breaker of its own,
// as in Java.
//
// A rule whose resource is "*" (DefaultResource, without Regex) is a
// default rule: Sentinel 2.0's DefaultCircuitBreakerSlot. It applies to
// every resource that has no degrade rule of its own (exact or regex), each
// resource getting its own breaker. Where Sentinel 2.0 loads default rules
// through a separate DefaultCircuitBreakerRuleManager, here they go in the
// same list as the other degrade rules, so that one rule file or property
// carries both.
//
// # Observing breakers
//
// RegisterStateChangeObserver registers a function told of every
// transition (Java's EventObserverRegistry): the resource, the rule, the
// states, and the value that tripped the breaker. Breakers lists every
// breaker with its state, for metrics and dashboards.
//
// # Dry run
//
// A breaker of a rule with DryRun set ("dryRun": true) runs its state
// machine as if it enforced, but admits every call: the calls it would
// have refused (OPEN before the retry time, HALF_OPEN with the probe out)
// are counted apart (runtime.Resource.DryRunBlockCount with
// runtime.BlockDegrade, the block log's "would block (dry run)" lines),
// and are no samples and no probes to it, even when they complete after
// the breaker closed. Breakers shows the state it would be in. DryRun is
// no part of a rule's identity: switching it keeps the breaker and its
// state, so an open dry-run breaker is open when it enforces. Java
// Sentinel ignores the field and would enforce the rule.
//
// # Cost
//
// A closed breaker costs its call one atomic load on entry and, on exit,
// one clock read and one atomic add on a per-processor counter (Java's
// LongAdder). Only the completions that can open the breaker (bad ones,
// and the one that brings the bucket to minRequestAmount) sum the counters
// and compare. Nothing is allocated per call (the bucket is replaced once
// per statIntervalMs), and the rule set is published through an atomic
// pointer: no lock is taken on the call path.
package degrade
