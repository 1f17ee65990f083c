// Package cluster is Sentinel's cluster flow control on Redis: every
// instance of a service shares one limit per cluster rule, counted in a
// Redis the team already operates instead of Java's token server.
//
//	c, err := cluster.New(cluster.Config{
//		Addr:      "redis.internal:6379",
//		Password:  os.Getenv("REDIS_PASSWORD"),
//		TLS:       &tls.Config{ServerName: "redis.internal"}, // optional
//		KeyPrefix: "orders:",                                 // one per service
//		Timeout:   50 * time.Millisecond,                     // cap on resourceTimeout
//	})
//	if err != nil { ... }
//	defer c.Close()
//	c.Install() // flow and hot-parameter rules with clusterMode now count in Redis
//	defer cluster.Uninstall()
//
// Rules are Java's: a flow rule with "clusterMode": true and a
// "clusterConfig" {"flowId": 1, "thresholdType": 1} is limited to count
// calls per window for the whole fleet (thresholdType 1, global), or to
// count × the live instances (thresholdType 0, Java's average-local).
// A hot-parameter rule in cluster mode limits each argument value so,
// within its item's count or the rule's. Instances share a limit by
// sharing the flowId (and KeyPrefix), as with Java's token server. Only
// QPS rules are counted in Redis. Nothing here is needed on a single
// machine: without an installed client a cluster rule is checked locally
// (see packages flow and paramflow).
//
// # The check: one round trip
//
// Each check of a cluster rule is one EVALSHA of a Lua script (the
// script's SHA is computed once; after a Redis restart or SCRIPT FLUSH
// go-redis gets NOSCRIPT and sends EVAL once, which loads it again).
// Redis runs the script atomically, so no two instances ever read the
// same count and both add to it. The script
//
//   - reads Redis's clock (TIME), not the instance's, so all instances
//     agree on the buckets;
//   - splits clusterConfig.windowIntervalMs (default 1000) into sampleCount
//     (default 10) buckets aligned on Redis's epoch milliseconds, drops
//     the buckets older than the window, and sums the others, for each
//     window the check touches: the flow id's, or one per argument value
//     of a hot-parameter call (a slice argument's values together);
//   - for thresholdType 0 drops expired instances from the live set and
//     multiplies count by the live instances (at least 1);
//   - admits when sum + acquire <= threshold in every window (Java's
//     cluster server blocks when latestQps + acquire > threshold), and
//     only then adds acquire (the call's batch count) to each window's
//     current bucket; a refused call counts nothing anywhere;
//   - keeps a window hash for two windows after its last admission.
//
// A window hash holds at most MaxWindowBuckets (100) buckets: a rule with
// a larger sampleCount (Java accepts 1,000,000 buckets of 1 ms) keeps its
// window length in 100 coarser buckets, so no check reads more than 100
// fields per window however long the rule has been in force.
//
// So the fleet never admits more than the threshold in any window that
// starts on a bucket boundary, whatever the concurrency. Admissions are
// not given back when a later rule or slot refuses the call (Java's token
// server does not either).
//
// # Leased tokens
//
// With Config.Leases, a flow rule's calls are admitted from tokens the
// instance leases from Redis in batches, so most calls cost no round trip.
// One script call takes a batch of the current window's tokens, counted in
// Redis as admitted at once: the fleet never admits more than the
// threshold (count, or count × live instances for thresholdType 0) in a
// window aligned on windowIntervalMs on Redis's clock, however the tokens
// are spent. A lease belongs to its window and dies with it: the instance
// uses it until the request's send time plus the microseconds the script
// said were left (Redis's TIME to the µs, not the whole ms the window is
// placed by, which let a lease outlive its window by up to a ms), which is
// never after the window's end on Redis's clock.
// Unused tokens are under-admission, never over-admission: at the
// window's turn they die with it (the next window's count starts from
// zero, so they are back in the fleet's pool), and Close gives the current
// window's back to Redis at once, so the other instances can still spend
// them in it.
//
// A lease is sized from demand. Each heartbeat reports the instance's
// demand per flow id (calls asked for a second, admitted or not, measured
// over at least a second) into <prefix>demand:<flowId> and reads back the
// fleet's sum, so each instance knows its share of the fleet's demand.
// The script grants the part of an allotment that matches the time left in
// the window:
//
//   - fleet demand above the threshold T: the allotment is T × the
//     instance's share (see the fallback below: its demand, raised to at
//     least a quarter of an even share, over the fleet's so raised), and
//     the grant is final: the shares add up to one, so each instance asks
//     once a window and, its grant spent, refuses without asking;
//   - fleet demand at or under T: 1.5 × the instance's own demand per
//     window (not final; the rest stays in Redis for whoever needs it, and
//     the next batch is fetched in the background only when the measured
//     demand would spend the lease before the window ends);
//   - before the fleet's demand is known (a new client or value), and for
//     a hot value under T: half the instance's demand in the busier of
//     this window and the last, at most an even share among the live
//     instances, with the next batch fetched in the background when a
//     quarter is left.
//
// A call with no tokens waits for the one request in flight. Once Redis
// grants less than asked, says none is left, or the grant was final, the
// window is spent for this instance and further calls in it are refused
// without asking. While Redis does not answer the fallback is as without
// leases (tokens already leased are still spent).
//
// What leases guarantee, for a threshold of T per window and a fleet
// demand of D: never more than T admitted in a window aligned on
// windowIntervalMs (zero over-admission, whatever the demand or timing);
// about min(T, D) admitted at a steady demand. What they cost: about one
// lease request per instance per window (an exhausted lease refuses
// without asking until its window has surely turned on Redis's clock), so
// per 1,000 admitted calls about 1000 × instances / T with D above T, and
// about 1000 / (1.5 × its own calls a window) for each instance with D
// under T; never more than one per call.
//
// Measured (two shared, busy cores, redis-server on loopback; medians of
// six runs): BenchmarkLeasedCheck 352 ns and 1 allocation per Entry/Exit
// under a leased cluster rule against 266 ns under a local one (501 ns
// against 360 ns with parallel callers), 0.005 Redis commands per 1,000
// admitted calls. TestFleetHoldsItsLimitThroughARedisRestart, three
// processes offered 400, 200 and 40 calls a second against a global
// 300/s: 300 admitted every second Redis counted, 9.0-10.0 Redis commands
// per 1,000 admitted calls (heartbeats aside; 35 with the even batches
// sized before); TestFleetHoldsItsLimitThroughASentinelFailover, the same
// fleet through a Sentinel failover: 299-300 every second Redis counted,
// 270-300 in the second the failover began in (over three runs). A lease
// is sized to the time left in its window when Redis answers, so a Redis
// that does not answer for d ms at a window's turn (a loaded machine
// leaving it unscheduled, a slow fsync) costs the fleet d ms of that
// window's count, under it and never over:
// TestFleetThroughAFailoverWithTheNewMasterStalledAtAWindowsTurn stops
// the new master from 50 ms before a turn for 400 ms, and the fleet
// admits 195-196 of 300 in that second (two runs, 2 shared cores).
//
// Turn leases on where the fleet's cluster-rule rate is high enough for
// the round trip per call to matter (thousands of calls a second, or a
// Redis shared by many services); leave them off where the
// sliding window matters more than the cost: without leases the limit
// holds in every window starting on a bucket boundary, with leases in
// windows aligned on windowIntervalMs, so up to twice the count can pass
// across a window's turn. Every instance sharing a flowId must agree:
// leased counts live in <prefix>lease:<flowId>, not in the window hash.
//
// Hot-parameter cluster rules lease per argument value (within
// MaxParamValues a call): a call's values with too few tokens are asked
// for in one script call, then the call takes a token from each value's
// lease or, if one has none, gives back what it took and is refused. The
// client holds leases for at most MaxParamLeases (10,000) values; past
// that (callers choose values), a value with no lease costs a round trip
// per call that leases just the call's tokens from the value's lease hash,
// so every call of a value counts against one fleet-wide figure whichever
// instance, and whichever path, checks it. A value's demand is not sent
// with heartbeats (values are many): each lease request for it reports the
// instance's calls in its last window into the value's lease hash and
// reads back the fleet's, and a value's batches follow that share as a
// flow id's do. One request per value is in flight at a time for a call
// of one value.
//
// # Keys
//
//	<prefix>flow:<flowId>            hash: bucket start (Redis ms) -> calls admitted
//	<prefix>param:<flowId>:<value>   hash: the same, for one argument value
//	<prefix>instances                sorted set: instance id -> registration expiry (Redis ms)
//	<prefix>lease:<flowId>           hash: w (window start, Redis ms), n (tokens leased in it)
//	<prefix>lease:param:<flowId>:<value>  hash: the same, for one argument value,
//	                                 and d:<instance id> -> "<expiry ms>:<calls a window>"
//	<prefix>demand:<flowId>          hash: instance id -> "<expiry ms>:<thousandths of a call a second>"
//
// The prefix is Config.KeyPrefix ("sentinel:" by default). A value is
// written as paramflow.ClusterValue's Key says ("i:42", "s:alice", ...),
// replaced by "sha256:<hex>" beyond 128 bytes; values with no text every
// process derives alike (pointers, channels, plain structs) are not sent
// to Redis and are checked as if Redis had not answered. On Redis Cluster
// a check touches several keys in one script, so the prefix is put in a
// hash tag (see Redis Cluster and Sentinel).
//
// # Live instances
//
// New registers the instance (Config.InstanceID, hostname-pid-random by
// default) in the instance set with an expiry of Redis's now +
// InstanceTTL (3 s by default), and a goroutine renews it every
// HeartbeatInterval (1 s) until Close, which stops the goroutine and
// removes the instance at once. A crashed instance stops counting for
// thresholdType 0 when its registration expires. New does not wait for
// Redis; a failed heartbeat is retried at the next tick.
//
// # Redis Cluster and Sentinel
//
// Config.Addr is one Redis. Config.Addrs with two or more nodes is a Redis
// Cluster: the client follows the slot map and MOVED/ASK redirections, and
// puts KeyPrefix in a hash tag unless it has one ("orders:" becomes
// "{orders:}"), since each check's script touches several keys and
// Redis Cluster runs a script on one slot only; all of a service's keys
// then live on one master, as on one Redis. Config.MasterName with Addrs
// (the Sentinels) is a Sentinel-managed Redis: the client asks the
// Sentinels for the master and follows a failover. Config.Client takes any
// go-redis UniversalClient built elsewhere. While a slot is half migrated
// or a failover is under way, checks fail and the rules fall back as for
// any outage; TestRedisClusterAndSlotMigration and
// TestSentinelFailoverUnderLoad (real 3-master Cluster and Sentinel, slot
// moved and master failed over under load) show checks answered again
// within a second and the windows kept. The Redis rule source
// (runtime/datasource/redis) takes the same clients; its key and channel
// need no hash tag.
//
// # Configuration from a rule file
//
// Config comes from code, or from a "cluster" section of a combined rule
// document, an array of at most one Settings object ([] turns cluster
// checking off and closes the client the file made):
//
//	{"flow": [...],
//	 "cluster": [{"addr": "redis.internal:6379", "passwordEnv": "REDIS_PASSWORD",
//	              "tls": true, "keyPrefix": "orders:", "timeoutMs": 50}]}
//
// ("addrs": [...] for a Redis Cluster, with "masterName" for Sentinel;
// "leases": true for Config.Leases)
//
// read by a combined kind that includes
// datasource.NewKind("cluster", cluster.SettingsProperty(),
// cluster.ValidateSettings, cluster.LoadedSettings). LoadSettings makes,
// installs and replaces the client; LoadedSettings never returns a
// password (prefer passwordEnv, the name of an environment variable).
//
// # Faults
//
// A check waits at most the rule's clusterConfig.resourceTimeout (ms;
// Java's default 2000, long for a flow check; hot-parameter rules have no
// such field and use 2000), capped by Config.Timeout:
// go-redis runs with the check's context deadline on the socket, no
// command retries and one dial attempt, so no call waits longer than that
// because of Redis. A check with no answer returns an error, and the flow
// slot checks the rule locally (fallbackToLocalWhenFail, JSON's default)
// or blocks the call (fallback off).
//
// A breaker keeps a dead Redis from costing every call a timeout: after
// Config.BreakerFailures (3) consecutive failed checks, checks fail at
// once with ErrUnavailable for Config.BreakerCooldown (1 s); then one call
// probes Redis. Its success closes the breaker and cluster checking
// resumes by itself; its failure opens it for another cool-down.
// Meanwhile the heartbeat probes every 100 ms, and a heartbeat answered
// within the time a check may wait (Config.Timeout, or Java's 2000 ms)
// closes the breaker too. One answered later proves nothing for checks:
// a Redis that answers, but slower than checks wait, keeps the breaker
// open, the outage told once (TestSlowRedisKeepsTheBreakerOpen, through
// a proxy that holds replies back), rather than closing it on each
// heartbeat and opening it on the next checks, each told. A caller that
// cancels its own context does not count as a Redis failure.
// Stats reports the checks answered, failed and skipped, and the
// breaker's state.
//
// An outage is told once: when the breaker opens, one warning through the
// runtime's logger ("sentinel: cluster redis unreachable; cluster rules
// are checked locally (...) or blocked until it answers", with the
// address and the error); while it is open,
// runtime.Dependencies lists Redis as down, which package metrics exports
// as sentinel_dependency_up{kind="cluster redis"} 0 and the dashboard
// shows as a line above everything else; when a probe (a call's or a
// heartbeat's) closes it, one info line ("sentinel: cluster redis answers
// again") with the outage's length and how many checks were meanwhile
// checked locally and blocked (rules without fallbackToLocalWhenFail). go-redis's own lines (a failed dial
// each) go through the runtime's logger at debug level.
//
// A reply that is not the script's verdict (an integer 0 or 1: something
// else answers at the address) is an error like any other: counted as a
// failure by the breaker, and the call answered by the rule's fallback,
// never silently blocked or admitted.
//
// A hot-parameter call whose list argument has more than
// paramflow.MaxValuesPerCall (100) values is refused by the rule before
// any value is looked at. One with more than Config.MaxParamValues distinct
// values (when set below 100) is not sent to Redis (each value is a key of
// the script): it returns paramflow.ErrCheckLocally, and the rule checks
// the call locally, whatever fallbackToLocalWhenFail says; Stats counts it
// as Local, and the breaker is not told.
//
// Close returns within about 500 ms (Config.Timeout when shorter) even
// when Redis hangs: the heartbeat in flight is abandoned, and an
// unanswered deregistration leaves the instance in the live set until
// InstanceTTL.
//
// # The fallback holds the fleet's limit
//
// While Redis does not answer, a thresholdType 1 (global) rule with
// fallbackToLocalWhenFail is checked locally against this instance's
// share of the count: its part of the fleet's demand at the last
// heartbeat Redis answered (see leases; kept locally, so the outage needs
// no round trip), where Java's fallback (each instance the whole count)
// admitted up to 2.25x. Redis works the shares out with each reply: every
// instance's demand raised to at least a quarter of an even share of the
// fleet's (so an instance that was idle can still serve), over the sum of
// the demands so raised. The shares of one reply add up to one, so the
// fleet admits the count, not more, during the outage; shares read from
// replies a heartbeat apart may differ by what the demand moved in
// between, so each instance checks 99% of its share (for 400, 200 and 40
// calls a second against 300: 181, 90 and 24). An instance that has
// not seen the fleet's demand (it started during the outage, or the rule
// had no calls) takes an even share, count / live instances (the whole
// count if it never reached Redis). Check says so with a
// *flow.LocalCount. A thresholdType 0 rule keeps its per-instance count.
// A global hot-parameter rule's values are shared alike, each on its own
// (CheckParams says so with a *paramflow.LocalCounts): with leases, by the
// value's demand, which each lease request reports (as d:<id> in the
// value's lease hash) and reads back for the fleet; without leases, or
// for a value this instance holds no lease for, by an even share; rounded
// down, as a flow rule's local check rounds (a share under one call
// refuses the value locally until Redis answers). A value's demand is
// reported with each of its lease requests, which may be far apart, so
// the shares two instances hold may have been read from replies that saw
// different demands, and add up to somewhat more than one (75 and 30 of
// 100 in TestHotValuesFallBackToTheirDemandShare). A Redis that restarts
// empty sees the fleet register again one by one, so a lower live count
// is believed only once heartbeats have seen it for InstanceTTL, and a
// flow id's demand only once as many instances as are live have reported
// it.
//
// While the breaker is open, heartbeats come every 100 ms (at most
// HeartbeatInterval) and each is a probe: the first Redis answers closes
// the breaker, so every instance counts in Redis again within about
// 100 ms of Redis answering, leases included (a lease never outlives its
// window). For the rest of the window the outage ended in (on Redis's
// clock, which heartbeats place, and 5 ms more for the placing's error),
// a call must pass the local share too, since what the fallback admitted
// in that window is not in Redis's count: each instance admits at most its
// share in that window, fallback and Redis together, so the fleet at most
// the count. From the next window on Redis counts alone.
//
// One case stays outside the count: a check that fails while the breaker
// is still closed (a timeout, a connection reset by a failover) is
// answered by the local share, and until the breaker opens Redis does not
// count what it admits, so in that window the fleet may admit more than
// the count by those calls.
// TestFleetHoldsItsLimitThroughARedisRestart (three processes offered 400,
// 200 and 40 calls a second against 300/s, Redis killed for 3 s and
// restarted empty) measured, with leases, 300, 300, 300, then 298-300,
// 295-296, 295-296 during the outage, 295-296 in the second Redis came
// back in, and 300, 300 after; without leases 298-299, 295, 295 during
// the outage, 297-300 in the second it came back in, 300, 300 after; one
// hot value of a global hot-parameter rule offered alike, with leases,
// 295 during the outage and in the second Redis came back in, then 293
// and 300.
//
// # Cost
//
// A cluster check is one Redis round trip (TestOneRoundTripPerCheck counts
// the EVALSHAs in INFO commandstats). BenchmarkCheck, Entry/Exit of an
// admit-all rule against a redis-server on loopback, two shared cores:
// about 95 µs and 22 allocations per call one caller at a time, about
// 47 µs per call (some 21,000 calls a second) with 16 concurrent callers,
// against 250 ns and 1 allocation for the same rule checked locally. The
// window script needs Redis 5 or later (it writes after reading TIME,
// which relies on script effects replication, the default since 5).
//
// # Not done yet
//
//   - Thread-grade cluster rules (Java's concurrent token protocol, with
//     resourceTimeout and clientOfflineTime) stay local.
//   - Java's cluster strategies beyond "normal", and prioritized calls
//     borrowing from the next window, are not implemented.
//
// Tests start their own redis-server processes (Debian package
// redis-server; .ci/redis.sh installs it) on free loopback ports, and fail
// when it is missing.
package cluster
