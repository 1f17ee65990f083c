// Package metrics exports the runtime's figures to Prometheus: a
// prometheus.Collector that the application registers on its own registry.
//
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(metrics.NewCollector(metrics.WithSource(src)))
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// The collector reads the counters the runtime keeps anyway, when scraped;
// a call does no work for it (BenchmarkEntryExit shows the hot path costs
// the same with a collector scraped beside it).
//
// # Metrics
//
// Per resource (label resource; the runtime caps resources at
// runtime.MaxResources, so the series are bounded), from its ClusterNode:
//
//	sentinel_resource_pass_total             calls admitted
//	sentinel_resource_block_total            calls blocked by any rule
//	sentinel_resource_success_total          calls completed (Java's "success": with or without error)
//	sentinel_resource_error_total            calls completed with a business error (Java's "exception")
//	sentinel_resource_response_time_seconds summary without quantiles: _sum and _count (= success)
//	sentinel_resource_min_response_time_seconds  smallest RT of the last whole second
//	sentinel_resource_concurrent_calls       calls in flight
//
// The same families without a label, prefixed sentinel_inbound_, cover every
// inbound call (Java's ENTRY_NODE, which system rules read). Then:
//
//	sentinel_rules{kind}                                   rules in force per kind
//	sentinel_circuit_breaker_state{resource,rule,strategy,state}  1 for the current state
//	sentinel_circuit_breaker_transitions_total{resource,to}      state changes (a degrade observer)
//	sentinel_adaptive_limit{resource}                      an adaptive rule's limit now
//	sentinel_adaptive_in_flight{resource}                  the calls in flight it counts
//	sentinel_adaptive_min_rtt_seconds{resource}            the unloaded response time it measured
//	sentinel_adaptive_probing{resource}                    1 while it probes at minLimit
//	sentinel_datasource_loads_total{source,kind}           versions loaded
//	sentinel_datasource_refusals_total{source,kind}        versions refused
//	sentinel_datasource_rules{source,kind}                 rules from the last load
//	sentinel_datasource_last_reload_successful{source,kind}
//	sentinel_datasource_last_reload_success_timestamp_seconds{source,kind}
//	sentinel_dependency_up{kind,name}                      0 during an outage of a server protection relies on
//	sentinel_dependency_outages_total{kind,name}           outages so far
//
// Dependencies are runtime.Dependencies: the cluster client's Redis
// ("cluster redis", by address) and the etcd and Redis rule sources
// ("etcd rule source", "redis rule source", by key), each listed from
// the time it is made until it is closed.
//
// Caller origins are not labels unless WithOrigins asks (their number is the
// callers', not the service's, to bound); then, for at most n origins per
// resource, the previous whole second's figures as gauges (origin nodes keep
// no minute of history to build counters from):
//
//	sentinel_origin_pass_per_second{resource,origin}
//	sentinel_origin_block_per_second{resource,origin}
//	sentinel_origin_concurrent_calls{resource,origin}
//
// Label values come from callers and from configuration: URL paths,
// origins, file paths. Each is made a valid label before it is sent: bytes
// that are not UTF-8 are written \xNN, control characters are escaped
// (\n, \x1b, \u202e), and a value over 256 bytes is cut and ends in
// "…#" and eight hex digits of a hash of the whole (see emit.go). A series
// whose labels come out equal to one already sent in the scrape is left
// out, so no input can make a scrape fail.
//
// Response time: the runtime keeps, per second, the sum of response times
// and the smallest one, not their distribution, so the collector exports
// an exact sum and count (mean RT over any range:
// rate(..._sum[1m]) / rate(..._count[1m])) and the last second's minimum,
// and no histogram or quantiles it would have to invent. A resource whose
// histogram is on (runtime.EnableRTHistogram: an opt-in, for its cost on
// each call) also has
//
//	sentinel_resource_call_duration_seconds{resource}
//
// a histogram of its calls' response times since the histogram was turned
// on, measured in microseconds (buckets from 25 µs to 10 s,
// runtime.RTHistogramBounds, exported in seconds), so
// histogram_quantile(0.99, rate(..._bucket[5m])) gives percentiles. It
// counts calls where _count above counts batch tokens.
//
// # Counters from sliding windows
//
// The runtime keeps sliding windows, not totals. Each counter is the sum of
// the resource's per-second counts (ClusterNode.History) that the collector
// has seen: a bucket is read again by every scrape until it has settled, 5 s
// after its second ended, and then folded into a running total once. The
// counters include the current second, only ever grow, and are exact as
// long as scrapes (or calls to Collector.Fold) come at least every 55 s; a
// Prometheus scrape_interval of 1m should be paired with a Fold ticker. The
// first scrape starts each counter from the last minute's history. See
// totals.go.
//
// # Blocks by rule kind
//
// sentinel_resource_block_by_type_total{resource,block_type} appears once the
// runtime keeps a monotonic count of blocks per resource and block type (a
// method BlockCount(runtime.BlockType) int64 on *runtime.Resource, counted on
// the blocked path only); the collector picks it up without a change.
// Today the runtime counts blocks in its windows without their type, and
// the collector adds no work to calls to learn it.
//
// # Dry-run rules
//
// sentinel_dry_run_blocks_total{resource,type} counts the calls that
// dry-run rules (a rule with "dryRun": true, of any kind) would have
// blocked and admitted, per resource and kind of rule (flow, degrade,
// system, authority, paramflow): runtime.Resource.DryRunBlockCount. A
// series appears with its first would-be block. These calls count as
// passes in the other series, never as blocks.
package metrics
