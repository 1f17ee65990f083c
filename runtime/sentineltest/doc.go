// Package sentineltest helps test code protected by the sentinelgen
// runtime: block handlers, fallbacks, and code that reads Sentinel's
// statistics, without crafting rules or driving traffic to trip them.
//
//	func TestGetOrderServesADegradedOrderWhenBlocked(t *testing.T) {
//		sentineltest.Reset(t)                                // no rules, fresh statistics
//		sentineltest.Block(t, "getOrder", runtime.BlockFlow) // refused until the test ends
//
//		o, err := svc.GetOrder(ctx, 1) // the generated wrapper calls getOrderBlocked
//		require.NoError(t, err)
//		assert.True(t, o.Degraded)
//	}
//
// # Reset
//
// Reset(tb) clears the rules of every kind (flow, degrade, system,
// authority and hot-parameter rules, through each package's LoadRules(nil))
// and puts the runtime on a fresh hand-stepped clock, now and again when the
// test ends; at the end the previous clock comes back. Clearing the rules
// drops their state too: breakers, warm-up and throttling state and per-value
// counters start afresh when rules are loaded again.
//
// The fresh clock starts on a whole minute later than any hand clock before
// it, so every sliding window (passes, blocks, successes, exceptions,
// response times) reads empty: that is how the statistics are reset. Two
// things outlive it: the thread count of calls a test entered and never
// exited, and the lifetime block counters (Resource.BlockCount and the
// metrics totals derived from it), which only grow.
//
// Importing sentineltest imports the five rule packages, so their slots are
// in every resource's chain; slots bind only where rules apply, so a
// resource without rules pays nothing for them.
//
// # Forced blocks
//
// Block(tb, resource, blockType) makes every call of resource fail with a
// *runtime.BlockError of blockType until the test ends: generated wrappers
// then call the block handler or fallback, runtime.Entry returns the error.
// No rule is loaded. The block comes from a slot, "SentinelTestBlockSlot",
// registered while any block is in place at order runtime.OrderStatistic+1,
// ahead of every rule slot: a forced block consumes no rule's tokens,
// waits in no throttling queue and moves no breaker. The slot binds only to
// blocked resources; other resources' chains do not change.
//
// The block is counted and logged as a real block of its type (block
// statistics, Resource.BlockCount, the block log). Its error carries a
// *Rule, whose String names it a sentineltest block, where a real block
// carries the rule package's rule (*flow.Rule, ...); its TriggeredValue is
// nil; its Error ends in "forced by sentineltest". Calls already admitted
// when Block is called finish normally.
//
// OpenBreaker(tb, resource) is Block(tb, resource, runtime.BlockDegrade): a
// circuit breaker forced open that never half-opens. A real breaker can
// only be opened by traffic, and would let a probe through after its time
// window; degrade.Breakers does not list a forced one.
//
// To lift a block before the test ends, place it in a subtest: it ends with
// the subtest. Blocking a resource again in the same test, or in a subtest
// of the test that blocked it, replaces the block type until that test
// ends.
//
// # Time
//
// Clock(tb) returns the hand clock the runtime reads during the test: the
// one Reset installed for the test or for a test it runs under, or else a
// fresh one installed now and restored when the test ends. Advance it to
// let windows, breaker time windows and warm-up periods pass; throttling
// waits advance it instead of sleeping.
//
// # Parallel tests
//
// Forced blocks are kept per test and per resource: parallel tests (and
// parallel subtests) that block distinct resources never see each other's
// blocks, and each block is lifted when the test that placed it ends.
// Blocking a resource that a test running at the same time (not the test
// itself or a test it runs under) has blocked fails the test: a resource
// is process-wide, so one of the two would be wrong.
//
// Rules and the clock are process-wide too. Tests that load rules or step
// the clock must not run in parallel with each other; call Reset in the
// parent test, before starting parallel subtests that only use Block. A
// Reset or Clock from a test running in parallel with another that holds
// the hand clock shares that clock rather than replacing it under the
// other test, and the shared clock is restored when the last of them ends;
// such a Reset still clears every rule, the other tests' included.
package sentineltest
