// Package dashboard is the runtime's live introspection: an http.Handler
// with JSON endpoints and a single embedded page, which the application
// mounts where it likes:
//
//	mux.Handle("/sentinel/", http.StripPrefix("/sentinel", dashboard.New(dashboard.WithSource(src))))
//
// Open /sentinel/ for the page: each resource's pass and block QPS and mean
// response time over the last minute as live charts (the busiest resources
// first), the circuit breakers' states, the adaptive concurrency limits, the rules
// in force, and the data
// sources with their last error. The page is one HTML file with inline
// script and styles: no external assets, no build step, nothing fetched
// but the handler's own JSON, polled every second.
//
// Each resource's card says why it blocks: its blocks since the process
// started by kind of rule (flow, degrade, paramflow, system, authority,
// adaptive, custom: the figures of the metric
// sentinel_resource_block_by_type_total) and the rule that blocked last,
// as the block log writes it, marked when it is a cluster rule; and
// whether a rule protects the resource ("protected: flow, degrade") or it
// is only observed, its calls counted and always admitted. None of it
// costs a blocked call anything: the counts are the runtime's
// (runtime.Resource.BlockCount) and the last rule is the block log's
// (runtime.Resource.LastBlock). The header says whether protection is on
// (runtime.SetEnabled). Tables wrap long names and rules rather than
// widen the page.
//
// # JSON endpoints (GET, relative to the mount point)
//
//	api/snapshot              what the page shows, in one response (Snapshot), with a line
//	                          per outage of a server protection relies on (runtime.Dependencies)
//	api/resources             every resource: declaration, live figures, blocks by kind of
//	                          rule, the rule that blocked last, protected or not (Resource);
//	                          ?history=1 adds each one's last 60 s, second by second;
//	                          ?name=N (repeatable) picks resources
//	api/tree                  the invocation tree (runtime.Tree)
//	api/rules                 the rules in force by kind, as a combined rule file:
//	                          {"flow": [...], "degrade": [...], ...}
//	api/breakers              circuit breakers and their states (degrade.Breakers)
//	api/limiters              adaptive concurrency limits: limit, calls in flight,
//	                          min RTT, probing (adaptive.States)
//	api/sources               data sources given with WithSource: state and last error
//	api/slots                 the slot chain (runtime.Slots)
//
// Everything is read from the runtime when asked: history comes from each
// resource's minute of history (sixty seconds the runtime keeps anyway), so
// the handler holds no memory of its own and calls do no work for it. A
// response is bounded by the runtime's cap on resources; api/snapshot keeps
// to the busiest (WithPageLimit), while api/resources?history=1 without a
// name answers for every resource (about 3 KB each).
//
// The handler has no authentication of its own and shows resource names
// and rules: mount it behind the application's.
//
// # Rule updates (off by default)
//
// With WithRuleUpdates, PUT api/rules/{kind} replaces the rules of a kind:
// the body is decoded, validated and loaded like a rule file (all or
// nothing; a refused document is answered 400 with the file load's message
// and changes nothing), then the rules in force are written to the kind's
// rule file, so they survive a restart; rules whose file would not load
// again (over the size cap) are refused with 413 and change nothing. See
// RuleFile.
//
// # Hostile requests
//
// With rule updates on, a request whose Host header is not allowed is
// answered 403 (DNS rebinding; default: localhost, *.localhost, loopback
// IPs and the address the request arrived on; WithAllowedHosts adds
// more), and a browser's cross-origin PUT is refused by
// http.CrossOriginProtection (WithTrustedOrigins). Every response carries
// X-Content-Type-Options: nosniff and a Content-Security-Policy with
// frame-ancestors 'none'. api/resources takes at most MaxNames distinct
// ?name= values (repeats count once; more is 400). Names in the JSON are
// valid UTF-8 with control characters escaped, at most 256 bytes; a
// source's last error at most MaxErrorBytes.
package dashboard
