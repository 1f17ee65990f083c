// Package system is Sentinel's SystemSlot: adaptive protection of the whole
// process from the figures of its inbound traffic and of the machine
// (Java's SystemRuleManager and SystemRule).
//
// Import it to put the slot in the chain (order runtime.OrderSystem) and
// load rules:
//
//	r := system.NewRule() // every threshold unset
//	r.QPS = 2000
//	r.HighestCPUUsage = 0.8
//	err := system.LoadRules([]system.Rule{r})
//
// or from JSON with Java's field names, where absent fields are unset:
//
//	[{"qps": 2000}, {"highestCpuUsage": 0.8}, {"highestSystemLoad": 6}]
//
// # Rules
//
// A Rule has five thresholds; a negative value is unset (Java's -1
// default). See Rule for the zero-value rule: JSON leaves absent fields
// unset, but in Go code a field left 0 is a threshold of 0, so start from
// NewRule.
//
//   - highestSystemLoad: one-minute load average (Linux: /proc/loadavg).
//   - highestCpuUsage: CPU usage in 0..1 (Linux: the cgroup's share of its
//     CPU limit when the process runs under one, else the machine's usage
//     from /proc/stat).
//   - qps: inbound calls admitted per second.
//   - avgRt: mean response time of inbound calls, ms.
//   - maxThread: inbound calls in flight.
//
// The strictest value of each field across all loaded rules is in force
// (InForce shows them; Rules returns the rules as loaded). Unlike Java, the
// set as a whole decides: Java turns checking on or off per rule, so a
// last rule with every field unset switches all system protection off; that
// bug is not copied. Also unlike Java, NaN or infinite values refuse the
// whole set (Java loads them). A highestCpuUsage above 1 is ignored, as
// Java ignores it, and the rest of its rule loads (LintRules warns).
//
// # Checks
//
// Only inbound calls (runtime.Inbound: the resource's declared traffic or
// runtime.WithTrafficType) are checked, all against runtime.InboundNode,
// Java's ENTRY_NODE, in Java's order; the first exceeded threshold blocks
// with runtime.BlockSystem, the rule that set the threshold, and a
// Triggered value naming the metric, its reading and the threshold:
//
//  1. qps: inbound passQps + the call's batch count > qps.
//  2. thread: inbound calls in flight > maxThread.
//  3. rt: inbound average RT > avgRt.
//  4. load: load average > highestSystemLoad, and Java's BBR test fails:
//     threads > 1 && threads > maxSuccessQps * minRt / 1000. A busy
//     machine refuses calls only while more are in flight than the
//     process's recent best throughput explains.
//  5. cpu: CPU usage > highestCpuUsage.
//
// As in Java the qps check reads the inbound node and then the call is
// counted, so concurrent callers can overshoot qps by the calls in flight
// between the two.
//
// # Dry run
//
// Rules with DryRun set ("dryRun": true) are combined apart from the
// enforcing ones (their strictest thresholds, DryRunInForce) and checked
// on each inbound call the enforcing thresholds admit; a call they would
// refuse is admitted and counted apart (runtime.Resource.DryRunBlockCount
// with runtime.BlockSystem, the block log's "would block (dry run)"
// lines). The inbound statistics count the calls the dry run let through,
// so the QPS, thread and RT checks may count more than enforcing rules
// would block. InForce shows the enforcing thresholds only. Java Sentinel
// ignores the field and would enforce the rule.
//
// # Readings
//
// Load and CPU usage are read by a background goroutine about once a
// second (SampleInterval), never on a call's path: the checks read two
// atomics. The goroutine runs only while a loaded rule sets
// highestSystemLoad or highestCpuUsage; LoadRules starts it (taking a first
// reading before the rules take effect) and stops it, waiting for it to
// end, when no such threshold remains, so LoadRules(nil) leaves no
// goroutine behind. A CPU usage is the difference of two readings, so it
// is known from the second reading, a second after loading.
//
// On platforms other than Linux there are no readings: the load and CPU
// thresholds are off, and the first reading logs a warning saying so. The
// other three thresholds work everywhere. SetReader replaces the readings
// (tests inject fixed figures) and Sample takes one at once.
package system
