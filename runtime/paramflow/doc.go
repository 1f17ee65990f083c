// Package paramflow is Sentinel's ParamFlowSlot: hot-parameter rules, which
// limit the calls of a resource per value of one of its arguments (Java's
// ParamFlowRuleManager, ParamFlowChecker and ParamFlowRule).
//
// Import it to put the slot in the chain (order runtime.OrderParamFlow) and
// load rules:
//
//	r := paramflow.NewRule("getOrder", 0, 5) // 5 calls/s per value of argument 0
//	r.BurstCount = 3
//	r.ParamFlowItemList = []paramflow.Item{{Object: "42", ClassType: "long", Count: 100}}
//	err := paramflow.LoadRules([]paramflow.Rule{r})
//
//	e, b := runtime.Entry(ctx, "getOrder", runtime.WithArgs(orderID))
//
// or from Java's JSON:
//
//	[{"resource": "getOrder", "paramIdx": 0, "grade": 1, "count": 5, "burstCount": 3,
//	  "paramFlowItemList": [{"object": "42", "classType": "long", "count": 100}]}]
//
// Calls pass their arguments with runtime.WithArgs; generated wrappers do
// so only while Resource.NeedsArgs is true, which this slot's checker makes
// it for resources with a rule (so resources without one box nothing).
//
// # Rules
//
// See Rule for the fields and their zero values. Absent JSON fields take
// Java's defaults (grade QPS, durationInSec 1, maxQueueingTimeMs 0). In Go
// code, the zero Grade is GradeThread and a nil ParamIdx is invalid: start
// from NewRule. LoadRules validates as Java's ParamFlowRuleUtil.isValidRule
// and more (see ValidateRules), and refuses the whole set, naming the
// index, field and reason of each invalid rule; Java skips invalid rules
// and items with a warning. A controlBehavior other than 0 and 2 (warm-up,
// 1 or 3, which hot-parameter rules do not implement) loads as the token
// bucket, as Java's ParamFlowChecker runs it; LintRules warns.
//
// # Semantics reproduced from Java
//
//   - Order: a resource's rules are checked in Java Sentinel 1.8's exact
//     order, computed at load: its own rules, then the regex rules that
//     match its name, pattern by pattern (patterns in the order their
//     first rule was loaded; Java's order of patterns is unpredictable).
//     Java puts a resource's rules in a HashSet and checks them in its
//     iteration order, unsorted, which follows ParamFlowRule.hashCode and
//     the set's table (Java 17's HashMap), not load order. It matters: a
//     rule checked before the one that refuses a call has already taken
//     the call's tokens or made it wait. The BlockError names the rule
//     Java's ParamFlowException would carry.
//   - paramIdx picks the argument; negative counts from the end (-1 is the
//     last), resolved on every call (Java rewrites the shared rule's
//     paramIdx on the first call, fixing it for every later call whatever
//     its argument count; that is not copied). Calls without arguments, or
//     with fewer than the index needs, pass. A nil argument passes.
//   - QPS grade, token bucket (controlBehavior 0): each value has a bucket
//     of count+burstCount tokens, full on first sight; a call takes its
//     batch count of tokens; once more than durationInSec has passed since
//     the last refill, passTime*count/(durationInSec*1000) tokens are added
//     (capped at the bucket size). count 5, burst 3: eight calls pass at
//     once, the ninth is refused; 1002 ms later five more pass.
//   - QPS grade, throttling (controlBehavior 2): a value's calls are spaced
//     round(1000*batch*durationInSec/count) ms apart; a call whose turn is
//     less than maxQueueingTimeMs away waits for it (through the runtime
//     clock; a done context refuses the call), a later one is refused.
//   - Thread grade: at most count calls of a value in flight. The count is
//     taken at the check and given back at exit, or at once when a later
//     slot refuses the call.
//   - Items give particular values their own count (0 blocks the value).
//     Items' objects are parsed by classType as Java's parseItemValue and
//     matched against Go values: integer classes match every Go integer
//     kind of that value (int, int8..int64, uint..uint64, and named types
//     of them), double/float match float32 and float64, boolean bool, char
//     a rune, byte or one-character string, anything else strings. An item
//     that does not parse, or has no object or a negative count, is
//     skipped with a warning (LintRules), as Java skips it; a boolean item
//     that is not "true" is false, as Java's Boolean.parseBoolean reads it.
//   - A slice or array argument passes only if every element passes, in
//     order; as in Java, tokens taken for earlier elements are not given
//     back when a later one is refused (thread counts are).
//   - An argument implementing Keyer is limited by its ParamKey (Java's
//     ParamFlowArgument), and so are Keyer elements of a list. Other
//     values that cannot be map keys (maps, funcs, nested slices, structs
//     holding interfaces or slices) are not limited; a warning is logged
//     once.
//   - A refused call gets a *runtime.BlockError with runtime.BlockParamFlow,
//     the *Rule, and the argument (as passed) as its triggered value.
//   - limitApp is ignored, as Java's hot-parameter checks ignore it.
//   - Cluster mode: a QPS rule with clusterMode is counted by the
//     ClusterChecker set with SetClusterChecker (runtime/cluster's Redis
//     window), for all of a call's values at once, all or nothing, each
//     within its item's count or the rule's. Without an answer (Redis
//     down, breaker open), or for a value with no text other processes
//     share (pointers, channels, plain structs), the rule is checked
//     locally when clusterConfig.fallbackToLocalWhenFail is set (against
//     the counts the checker says, with a *LocalCounts: runtime/cluster
//     gives each value this instance's share of a global count), and the
//     call is blocked otherwise. With no checker set, as Java without a
//     token server: checked locally with fallback, passing without.
//   - Regex rules (resource is a pattern matching whole names) keep
//     separate per-value state for each matched resource.
//
// # Dry run
//
// A rule with DryRun set ("dryRun": true) runs fully and admits every
// call; the calls it would have blocked are counted apart
// (runtime.Resource.DryRunBlockCount with runtime.BlockParamFlow, the block
// log's "would block (dry run)" lines). A thread-grade dry-run rule holds
// none of the values of a call it refused, so the call's exit gives back
// nothing; a throttling dry-run rule takes the call's turn without making
// it wait. DryRun is no part of a rule's identity: switching it keeps the
// per-value state. Java Sentinel ignores the field and would enforce the
// rule.
//
// # Bounded state
//
// Each rule keeps the state of at most 4000*durationInSec values (at most
// 200,000), Java's ParameterMetric sizes, per resource, in a sharded map
// with CLOCK eviction (an approximate LRU): a flood of distinct values
// evicts values unused since the clock hand last passed, and never grows
// memory past the bound. Values with calls in flight are evicted last. An
// evicted value starts again with a full bucket. Looking up a value
// already held takes a shard's read lock and allocates nothing; keys of
// integers and strings are built without allocation.
//
// A slice or array argument of more than MaxValuesPerCall (100) elements
// is refused by every rule that reads it (a dry-run rule counts a
// would-be block), without its elements being looked at; a warning is
// logged once. Checking only the first ones would let a counted value ride
// past its limit behind them; checking all of them costs a caller-chosen
// time and makes room for them by evicting the values the rule counts.
// Integer and string values are spread over the shards with a per-cache
// random seed, so callers cannot aim a call's values at one shard.
//
// Reloading a rule equal to one in force keeps its per-value state, and a
// rule that leaves takes its state with it, regex rules as literal ones.
// (Java never clears a regex rule's state when the rule leaves, and clears
// it on a resource whose own rules all leave.) Of
// rules equal by Java's ParamFlowRule.equals (every field but DryRun, a
// blank limitApp being "default", items compared in order) within one
// set, the first is checked and the others are dropped, as Java's HashSet
// drops them.
// Of two items for the same value, the later one counts (Java's HashMap).
package paramflow
