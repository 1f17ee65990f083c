// Package sentinelotel exports the sentinelgen runtime to OpenTelemetry:
// its figures as metrics on a MeterProvider, its refusals and business
// errors on the callers' spans, and, if asked, a span per protected call.
// It is a module of its own (github.com/sentinelgen/sentinelgen/adapters/otel),
// so applications that do not use OpenTelemetry never build against it.
//
//	m, err := sentinelotel.RegisterMetrics(meterProvider, metrics.WithSource(src))
//	defer m.Unregister()
//	defer sentinelotel.Trace()() // or Trace(sentinelotel.WithCallSpans(tracerProvider))
//
// and, for response-time histograms, the producer on the SDK's reader:
//
//	reader := sdkmetric.NewPeriodicReader(exporter, sdkmetric.WithProducer(sentinelotel.NewProducer()))
//
// Nothing else changes: generated wrappers, nethttp, sentinelgrpc and the
// web framework adapters open their calls through runtime.Entry, which
// Trace observes (runtime.AddObserver). Before RegisterMetrics and Trace
// the runtime does no work for OpenTelemetry: the observer hook is one
// atomic load and a nil check per call, and the metrics are read from
// counters the runtime keeps anyway.
//
// # Metrics
//
// RegisterMetrics exports what package runtime/metrics's Prometheus
// collector exports, every family, read through that collector (so the
// two agree figure for figure on the same traffic) when the
// MeterProvider's readers collect. Names follow OpenTelemetry's general
// semantic conventions for metrics: dot-separated namespaces, the unit as
// the instrument's unit rather than a suffix, UpDownCounters for things
// in flight, 0/1 gauges with the state as an attribute. All are
// cumulative; counts are int64, seconds float64.
//
//	Prometheus family                                          instrument                                 kind            unit
//	sentinel_resource_pass_total                               sentinel.resource.pass                     Counter         {call}
//	sentinel_resource_block_total                              sentinel.resource.block                    Counter         {call}
//	sentinel_resource_success_total                            sentinel.resource.success                  Counter         {call}
//	sentinel_resource_error_total                              sentinel.resource.error                    Counter         {call}
//	sentinel_resource_response_time_seconds (summary's sum)    sentinel.resource.response_time            Counter         s
//	sentinel_resource_min_response_time_seconds                sentinel.resource.response_time.min        Gauge           s
//	sentinel_resource_concurrent_calls                         sentinel.resource.active_calls             UpDownCounter   {call}
//	sentinel_resource_block_by_type_total                      sentinel.resource.block_by_type            Counter         {call}
//	sentinel_dry_run_blocks_total                              sentinel.resource.dry_run.block            Counter         {call}
//	sentinel_inbound_* (the same seven)                        sentinel.inbound.*                         (the same)
//	sentinel_origin_pass_per_second                            sentinel.origin.pass.rate                  Gauge           {call}/s
//	sentinel_origin_block_per_second                           sentinel.origin.block.rate                 Gauge           {call}/s
//	sentinel_origin_concurrent_calls                           sentinel.origin.active_calls               UpDownCounter   {call}
//	sentinel_rules                                             sentinel.rules                             UpDownCounter   {rule}
//	sentinel_circuit_breaker_state                             sentinel.circuit_breaker.state             Gauge           1
//	sentinel_circuit_breaker_transitions_total                 sentinel.circuit_breaker.transitions       Counter         {transition}
//	sentinel_datasource_loads_total                            sentinel.datasource.loads                  Counter         {version}
//	sentinel_datasource_refusals_total                         sentinel.datasource.refusals               Counter         {version}
//	sentinel_datasource_rules                                  sentinel.datasource.rules                  UpDownCounter   {rule}
//	sentinel_datasource_last_reload_successful                 sentinel.datasource.last_reload.successful Gauge           1
//	sentinel_datasource_last_reload_success_timestamp_seconds  sentinel.datasource.last_reload.time       Gauge           s
//	sentinel_adaptive_limit                                    sentinel.adaptive.limit                    UpDownCounter   {call}
//	sentinel_adaptive_in_flight                                sentinel.adaptive.active_calls             UpDownCounter   {call}
//	sentinel_adaptive_min_rtt_seconds                          sentinel.adaptive.min_rtt                  Gauge           s
//	sentinel_adaptive_probing                                  sentinel.adaptive.probing                  Gauge           1
//	sentinel_dependency_up                                     sentinel.dependency.up                     Gauge           1
//	sentinel_dependency_outages_total                          sentinel.dependency.outages                Counter         {outage}
//	sentinel_resource_call_duration_seconds (histogram)        sentinel.resource.call.duration            Histogram       s  (NewProducer)
//
// The mean response time is sentinel.resource.response_time divided by
// sentinel.resource.success (Java's success: calls that completed). A
// family the collector gains later that this table does not know yet is
// still exported, its name derived from the Prometheus one (the prefix's
// '_' becomes '.', _total makes it a Counter and goes, _seconds becomes
// the unit).
//
// Labels become attributes in the sentinel. namespace: resource →
// sentinel.resource, block_type and the dry-run type → sentinel.block.type,
// origin → sentinel.origin, kind → sentinel.rule.kind, rule →
// sentinel.rule.index, strategy → sentinel.circuit_breaker.strategy,
// state and to → sentinel.circuit_breaker.state, source →
// sentinel.datasource.source; a dependency's kind and name →
// sentinel.dependency.kind and sentinel.dependency.name. Their values are the collector's, already
// made safe (valid UTF-8, control characters escaped, at most 256 bytes).
//
// The collector turns the runtime's sliding windows into counters by
// folding each settled second once; RegisterMetrics folds every 30 s on
// its own, so the counters stay exact whatever the reader's interval.
//
// # Histograms
//
// A resource whose response-time histogram is on (runtime.EnableRTHistogram)
// is timed in microseconds and counted in fixed buckets from 25 µs to
// 10 s. OpenTelemetry's API has no observable histogram, so NewProducer,
// an SDK metric.Producer, exports them as sentinel.resource.call.duration
// (Histogram, unit s, explicit bounds in seconds, cumulative). What a
// histogram costs each of its resource's calls is in runtime's
// EnableRTHistogram.
//
// # Traces
//
// Trace registers the runtime Observer. For a call whose context carries a
// recording span (the caller's: otelhttp's server span, otelgrpc's, one the
// application started):
//
//   - a refused call adds the event "sentinel.block" with sentinel.resource,
//     sentinel.block.type (flow, degrade, system, authority, paramflow,
//     custom), sentinel.rule (the rule as its String method writes it) and,
//     when the caller's origin is known, sentinel.origin;
//   - a business error recorded on the entry is recorded as
//     span.RecordError does: an "exception" event (exception.type,
//     exception.message), with sentinel.resource.
//
// The caller's span status is left to the caller (a fallback may have
// answered the request well). WithCallSpans also starts a span per call,
// named after the resource, a child of the caller's, current in the
// business method (SentinelEntry.Context); the events then go on it, and
// its status is Error when the call was refused or failed.
//
// Resource names, origins and error messages may hold what a caller sent
// (an unmatched URL path, a header), and OTLP's protobuf refuses a string
// that is not UTF-8: one such string fails the whole batch its span is
// exported in, everyone's spans with it. So every span name, attribute,
// status and exception message from a call is valid UTF-8, control
// characters escaped (a byte that is not UTF-8 is written \xNN), and cut:
// names and attributes to 256 bytes (the Prometheus labels' rule: a cut
// value ends in "…#" and a hash of the whole), messages to 1 KiB.
//
// An admitted call without an error costs the registered observer a check
// of that error and nothing more; a refused call, the lookup of the span
// in its context and, when it records, the event.
package sentinelotel
