// Package flow is Sentinel's flow control: Java's FlowSlot, FlowRuleManager,
// FlowRuleChecker and its four traffic-shaping controllers, with Java's
// arithmetic, so that a flowrule.json written for a Spring Cloud Alibaba
// service means the same thing here.
//
// Importing the package registers the FlowSlot (order -2000) in every
// resource's chain; resources without flow rules are not touched.
//
//	err := flow.LoadRules([]flow.Rule{{
//		Resource: "getOrder",
//		Grade:    flow.GradeQPS, // the Go zero value is GradeThread (Java's code 0)
//		Count:    20,
//	}})
//
// Rule files use Java's JSON: {"resource": "getOrder", "grade": 1,
// "count": 20}. Absent fields take Java's defaults (limitApp "default",
// grade 1 QPS, strategy 0, controlBehavior 0, warmUpPeriodSec 10,
// maxQueueingTimeMs 500); enum fields also take names ("grade": "QPS",
// "controlBehavior": "WarmUp"); unknown fields (id, app, gmtCreate...) are
// ignored. Data sources load through Property().Update.
//
// # Loading
//
// LoadRules checks every rule with Java's FlowRuleUtil.isValidRule: Java
// skips an invalid rule with a log line, here the whole set is refused with
// a runtime.RuleErrors naming each bad rule's index, field and reason
// (`count -1 is negative`), and the rules in force stay. Refused beyond
// Java: NaN or infinite counts; an explicit 0 in JSON for warmUpPeriodSec or
// maxQueueingTimeMs where the behavior uses it (Go code's 0 means Java's
// default); an unknown clusterConfig.thresholdType. What Java accepts
// loads, with Java's meaning, and LintRules says what that meaning is: an
// unknown strategy code, or a Relate or Chain thread rule without
// refResource, passes every call (Java's FlowRuleChecker selects no node);
// an unknown controlBehavior code rejects over the count, as Reject (Java's
// generateRater). count 0 is valid and blocks every
// call. A rule equal to an earlier one by Java's FlowRule.equals (every
// field but DryRun, a blank limitApp being "default") is dropped, as
// Java's HashSet drops it; the first stays. Rules returns what is in force,
// in load order, defaults filled in.
//
// # Which rules apply, on which statistics
//
// A resource's rules are checked in the order of Java's
// RuleManager.getRules: first its own rules, then the regex rules whose
// pattern matches the whole name (RE2 syntax; every regex rule kind
// matches a rule set's patterns together, by at most 8 automata built at
// load, so binding a name reads it at most 8 times whatever the patterns,
// and a set whose automata would not fit is refused), pattern by pattern
// in the order their first rule was loaded (Java's order of patterns is a
// HashMap's of identity hashes: unpredictable). Each list is in Java
// Sentinel 1.8's exact order, computed at load: Java puts a resource's
// rules in a HashSet, so rules come in the order of their FlowRule.hashCode
// in the set's table (Java 17's HashMap: its size, bins, resizes and tree
// bins reproduced), not in load order, and then sorts them stably with
// FlowRuleComparator: local rules before cluster rules, and among each,
// rules of a specific limitApp ("other" included, which the comparator
// does not tell from an origin) before "default" ones. So of two rules
// that differ only in count, either may be checked first, whatever the
// load order, as in Java; it matters when the first one makes the call
// wait or keeps state. The first rule that refuses the call blocks it with
// a runtime.BlockError whose Rule is the *Rule (the one Java's
// FlowException would carry) and whose TriggeredValue is the rule's
// limitApp.
//
// limitApp selects callers as Java's FlowRuleChecker: a specific origin
// (runtime.EnterContext's origin) limits that origin's calls, "other"
// limits origins named by no other rule of the resource, each on its own
// (for a regex rule too, the rules that apply to the called resource; Java
// asks the rules of the pattern's string instead, so that to ".+" every
// origin is other),
// "default" limits everyone. Strategy selects the statistics: Direct reads
// the resource's ClusterNode for "default" and the origin's node
// otherwise; Relate reads RefResource's ClusterNode (a resource never
// declared or called has none, and the rule passes the call, as in Java; a
// declared resource's node reads zero until it is called);
// Chain applies only to calls in the context named RefResource and reads
// the resource's node in that context.
//
// # Controllers
//
// Thread rules, and QPS rules with Reject, are Java's DefaultController:
// a call is refused when used + acquire > count, used being the calls in
// flight (one per call, whatever its batch count) or (int) passQps,
// acquire the call's batch count. So count 2.5 admits 2 per second, count
// 0 admits nothing, and a thread rule of 4 admits three calls of batch 2.
//
// Where we differ, on purpose: Java checks the node, and the Statistic
// slot counts the pass afterwards, so concurrent callers that all read
// count-1 all pass and a window holds more than count. A Direct Reject
// rule here counts its own admissions in one atomic check-and-add (a pass
// window for QPS, a thread counter released at exit), per resource, per
// origin for "other": it never admits more than count in a window, at any
// concurrency. A call refused by a later rule or slot gives its pass back.
// A new gate starts from what its node already counts: the window's passes,
// and for threads the calls in flight from before the rule was loaded.
// Relate and Chain rules, which read another resource's or another
// context's statistics, check the node as Java does.
//
// WarmUp is Java's WarmUpController: warningToken = (int)(period*count) /
// (coldFactor-1), maxToken = warningToken + (int)(2*period*count /
// (1+coldFactor)), slope = (coldFactor-1) / count / (maxToken-warningToken);
// the bucket starts full (cold) and is synced once per second from the
// previous second's passes; above the warning line a call passes while
// passQps + acquire <= nextUp(1 / (aboveToken*slope + 1/count)). With count
// 10, period 10 and cold factor 3 that is warningToken 50, maxToken 100,
// slope 0.004, and 3 calls in the first second (count/3). The cold factor
// is SetColdFactor's, 3 by default; values <= 1 are refused.
//
// Throttling is Java's ThrottlingController: calls pass
// round(1000*acquire/count) ms apart; a call whose turn is at most
// maxQueueingTimeMs away waits for it (through the runtime's clock, so a
// test clock steps it), a later one is refused; a caller whose context is
// cancelled while it waits is refused and its turn given back (Java
// ignores interrupts). As Java, the spacing is counted in nanoseconds when
// count > 1000 or 1000 is not a multiple of round(count) (count 3, count
// 2000), in the runtime's cached milliseconds otherwise (count 10, 7.5).
//
// WarmUpThrottling is Java's WarmUpRateLimiterController: the throttling
// queue, spaced at the warm-up rate while the bucket is above the warning
// line. Java admits every call when its count is 0 (a NaN cost rounded to
// 0); here count 0 blocks, as for every other rule.
//
// Controller state (warm-up bucket, throttling queue, admission counts) is
// per rule and resource. A rule that is still in force, unchanged, after a
// load keeps it; Java rebuilds every controller on every load, so a warm
// resource would turn cold whenever any flow rule changed. A new or
// changed Reject rule starts from the passes its node already counted in
// the current window.
//
// Waits (throttling, prioritized calls) go through the runtime's clock and
// end early, refusing the call, when the caller's context is done. Checks
// after a wait, and the count of the call's pass, see the time after it
// (runtime.Call.NowMillis), as in Java; a Direct Reject rule counts the
// call at its entry time, where it gives the pass back if the call is
// refused later.
//
// # Prioritized calls
//
// A call entered with runtime.WithPrioritized (Java's
// SphU.entryWithPriority) that a local QPS Reject rule refuses may borrow
// from a window to come, as Java's DefaultController does with
// StatisticNode.tryOccupyNext: the wait is to the next 500 ms bucket (or
// the one after, when the occupy timeout allows), and the window then,
// without the buckets before it, must hold the rule's passes, everything
// already borrowed and the call within count. If it is less than
// OccupyTimeout (500 ms; SetOccupyTimeout) away, the call's pass is counted
// in that window, the call waits until then and passes. Count 10, ten
// passes at 100 ms: a prioritized call at 600 ms waits 400 ms and passes
// at 1000 ms; at 100 ms it is refused (the next window still holds the ten).
//
// As in Java, thread rules never borrow, the call then passes without the
// slots after this one (PriorityWaitException), and the borrowed pass
// counts for everyone in the window it was borrowed from. Unlike Java, the
// resource's remaining flow rules still check the call (Java stops at the
// rule that lent), ordinary calls never push a window that holds borrowed
// passes past count (Java's ordinary check reads the current window only,
// and the next one overshoots), the pass is counted on every node of the
// call (Java counts it on the rule's node only), and a cluster rule does
// not lend while a ClusterChecker is set, even when it falls back to its
// local check.
//
// # Dry run
//
// A rule with DryRun set ("dryRun": true) runs fully and admits every
// call; the calls it would have blocked are counted apart
// (runtime.Resource.DryRunBlockCount with runtime.BlockFlow, the block
// log's "would block (dry run)" lines), and the remaining rules check the
// call as if the dry-run rule did not apply to it. What the rule keeps is
// what it would have admitted: a Direct Reject gate counts only the passes
// it granted and holds only the thread tokens it granted (not the node's
// calls in flight, which include those it let through); a call it refused
// gets nothing back at its exit, nor when a later slot blocks it; a
// throttling rule takes the call's turn without making it wait. So on the
// same traffic it counts the blocks the enforcing rule makes. Rules that
// read the resource's statistics (Relate, Chain, warm-up, the local check
// of a cluster rule) see the calls the dry run let through as passed, and
// may count more. A dry-run rule lends no window to a prioritized call: the
// refusal is counted. DryRun is no part of a rule's identity: switching it
// keeps the rule's state (warm-up bucket, throttling queue, gates). Java
// Sentinel ignores the field and would enforce the rule.
//
// # Cluster mode
//
// clusterMode and clusterConfig are parsed and validated as Java's
// checkClusterField and checkClusterConcurrentField. A cluster rule is
// counted by the ClusterChecker set with SetClusterChecker (package
// runtime/cluster provides one on Redis: one limit shared by every
// instance), as Java's passClusterCheck: before limitApp and strategy,
// which it ignores as Java does. When the checker has no answer (an
// error: Redis down or slow, its breaker open), the rule is checked
// locally if clusterConfig.fallbackToLocalWhenFail is true (JSON's
// default), and the call is blocked otherwise. A cluster Reject rule's
// local check is Java's DefaultController on the node, as Java's
// fallback is: it does not use the atomic admission gates, so concurrent
// callers may overshoot it as they do in Java.
//
// Only QPS cluster rules go to the checker; thread-grade cluster rules
// (Java's concurrent token protocol) stay local. With no checker set, a
// cluster rule behaves as Java's does when no token service is available:
// checked locally with fallback, passing every call without.
package flow
