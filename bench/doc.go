// Package bench holds no code: its tests are the side-by-side benchmarks
// of the runtime's performance targets, run in one process so that the
// figures are comparable:
//
//	go test ./bench -run x -bench . -benchmem -count 8
//
// Each case runs serially and under b.RunParallel:
//
//   - RateAllow: golang.org/x/time/rate Limiter.Allow with a limit it never
//     reaches, the yardstick (about 90 ns on 2-core VMs);
//
//   - GobreakerExecute: github.com/sony/gobreaker/v2 Execute of a call that
//     succeeds (a closed breaker);
//
//   - EntryExitNoRules: runtime.Entry + Exit of a resource without rules;
//
//   - EntryExitFlowQPS: runtime.Entry + Exit with one admitting Direct
//     Reject QPS flow rule, at most one allocation (the entry).
//
//   - EntryExitBreaker and EntryExitFlowQPSAndBreaker (degrade_test.go): a
//     closed runtime/degrade breaker alone, and with the flow rule on the
//     same resource, the full target (at most 1.5x RateAllow, one
//     allocation), to be read against GobreakerExecute;
//
//   - EntryExitRTHistogram (histogram_test.go): EntryExitNoRules with the
//     resource's response-time histogram on, the histogram's cost;
//
//   - EntryExitAdaptive and EntryExitFlowThreads (adaptive_test.go): an
//     adaptive concurrency rule whose limit is never reached, against a
//     thread-grade flow rule, Java's fixed limit on calls in flight;
//
//   - Scale* (scale_test.go): the full target as resources (called round
//     robin), rules per resource and goroutines grow;
//
//   - AllocEntrySized (alloc_test.go): allocating one object of the entry's
//     size class, the floor of any Entry+Exit, which allocates once (the
//     entry itself).
//
//   - EntryRefusedFlow and EntryRefusedBreaker (refusal_test.go): Entry of
//     a resource whose flow rule refuses every call, or whose breaker is
//     open, to be read against the admitted cases: a refusal allocates its
//     entry only, and costs less than an admission.
//
// bench/compare, a module of its own, runs the runtime and its adapters
// side by side with alibaba/sentinel-golang (bench/compare.sh).
//
// bench/hostile, a binary of its own because it fills the resource table,
// has what hostile names cost: binding a new 4 KiB name under the widest
// regex rule sets the caps allow in four rule kinds
// (BindNewNameWidestRegexRules, at most 1 ms), and a call past
// runtime.MaxResources against a call to a known resource under twenty
// ordinary regex rules per kind (OverflowCall, at most 2x KnownCall).
package bench
