package sentinelotel

import (
	"strings"

	"go.opentelemetry.io/otel/attribute"
)

// Naming: OpenTelemetry's general semantic conventions for metrics and
// attributes (semantic conventions 1.x, "Metrics" and "Attribute naming"):
// names are namespaced with dots (sentinel.resource.pass), words within a
// component joined by '_'; the unit is the instrument's (UCUM: "s",
// "{call}"), never a suffix of the name, so the Prometheus families'
// _total and _seconds go; counts of things in flight are UpDownCounters
// (as http.server.active_requests), states are a 0/1 gauge with the
// state as an attribute. Attributes live in the sentinel. namespace.

// kind is the instrument kind a family is observed as.
type kind uint8

const (
	counter   kind = iota + 1 // a monotonic count: an observable counter
	upDown                    // a count that rises and falls: an observable up-down counter
	gauge                     // a reading: an observable gauge
	sumOfTime                 // a Prometheus summary: its sum as a counter of seconds
)

// instrument is how one Prometheus family of package runtime/metrics is
// observed in OpenTelemetry.
type instrument struct {
	name, unit string
	kind       kind
	float      bool // float64 values (seconds); counts are int64
	// attrs names this family's labels where they mean something else
	// than in attributeKeys (a dependency's kind is not a rule kind).
	attrs map[string]attribute.Key
}

// dependencyAttrs are the dependency families' labels.
var dependencyAttrs = map[string]attribute.Key{
	"kind": "sentinel.dependency.kind",
	"name": "sentinel.dependency.name",
}

// families maps each family the Prometheus collector exports to its
// instrument. Families added to the collector later that are not listed
// here still appear (see derivedInstrument).
var families = map[string]instrument{
	"sentinel_resource_pass_total":                {"sentinel.resource.pass", "{call}", counter, false, nil},
	"sentinel_resource_block_total":               {"sentinel.resource.block", "{call}", counter, false, nil},
	"sentinel_resource_success_total":             {"sentinel.resource.success", "{call}", counter, false, nil},
	"sentinel_resource_error_total":               {"sentinel.resource.error", "{call}", counter, false, nil},
	"sentinel_resource_response_time_seconds":     {"sentinel.resource.response_time", "s", sumOfTime, true, nil},
	"sentinel_resource_min_response_time_seconds": {"sentinel.resource.response_time.min", "s", gauge, true, nil},
	"sentinel_resource_concurrent_calls":          {"sentinel.resource.active_calls", "{call}", upDown, false, nil},
	"sentinel_resource_block_by_type_total":       {"sentinel.resource.block_by_type", "{call}", counter, false, nil},
	"sentinel_dry_run_blocks_total":               {"sentinel.resource.dry_run.block", "{call}", counter, false, nil},

	"sentinel_inbound_pass_total":                {"sentinel.inbound.pass", "{call}", counter, false, nil},
	"sentinel_inbound_block_total":               {"sentinel.inbound.block", "{call}", counter, false, nil},
	"sentinel_inbound_success_total":             {"sentinel.inbound.success", "{call}", counter, false, nil},
	"sentinel_inbound_error_total":               {"sentinel.inbound.error", "{call}", counter, false, nil},
	"sentinel_inbound_response_time_seconds":     {"sentinel.inbound.response_time", "s", sumOfTime, true, nil},
	"sentinel_inbound_min_response_time_seconds": {"sentinel.inbound.response_time.min", "s", gauge, true, nil},
	"sentinel_inbound_concurrent_calls":          {"sentinel.inbound.active_calls", "{call}", upDown, false, nil},

	"sentinel_origin_pass_per_second":  {"sentinel.origin.pass.rate", "{call}/s", gauge, false, nil},
	"sentinel_origin_block_per_second": {"sentinel.origin.block.rate", "{call}/s", gauge, false, nil},
	"sentinel_origin_concurrent_calls": {"sentinel.origin.active_calls", "{call}", upDown, false, nil},

	"sentinel_rules":                             {"sentinel.rules", "{rule}", upDown, false, nil},
	"sentinel_circuit_breaker_state":             {"sentinel.circuit_breaker.state", "1", gauge, false, nil},
	"sentinel_circuit_breaker_transitions_total": {"sentinel.circuit_breaker.transitions", "{transition}", counter, false, nil},

	"sentinel_datasource_loads_total":                           {"sentinel.datasource.loads", "{version}", counter, false, nil},
	"sentinel_datasource_refusals_total":                        {"sentinel.datasource.refusals", "{version}", counter, false, nil},
	"sentinel_datasource_rules":                                 {"sentinel.datasource.rules", "{rule}", upDown, false, nil},
	"sentinel_datasource_last_reload_successful":                {"sentinel.datasource.last_reload.successful", "1", gauge, false, nil},
	"sentinel_datasource_last_reload_success_timestamp_seconds": {"sentinel.datasource.last_reload.time", "s", gauge, true, nil},

	"sentinel_adaptive_limit":           {"sentinel.adaptive.limit", "{call}", upDown, false, nil},
	"sentinel_adaptive_in_flight":       {"sentinel.adaptive.active_calls", "{call}", upDown, false, nil},
	"sentinel_adaptive_min_rtt_seconds": {"sentinel.adaptive.min_rtt", "s", gauge, true, nil},
	"sentinel_adaptive_probing":         {"sentinel.adaptive.probing", "1", gauge, false, nil},

	"sentinel_dependency_up":            {"sentinel.dependency.up", "1", gauge, false, dependencyAttrs},
	"sentinel_dependency_outages_total": {"sentinel.dependency.outages", "{outage}", counter, false, dependencyAttrs},
}

// histogramFamily is exported by the Producer (histogram.go), not as an
// observable instrument: OpenTelemetry has no observable histogram.
const (
	histogramFamily     = "sentinel_resource_call_duration_seconds"
	histogramInstrument = "sentinel.resource.call.duration"
)

// derivedInstrument names a family the table does not list, so that no
// figure of the collector goes missing: the prefix's '_' becomes '.', the
// Prometheus suffixes _total and _seconds go (the latter as unit "s"), and
// a _total family is a counter, any other a gauge.
func derivedInstrument(family string) instrument {
	in := instrument{kind: gauge, float: true, unit: "1"}
	name := family
	if n, ok := strings.CutSuffix(name, "_total"); ok {
		name, in.kind = n, counter
	}
	if n, ok := strings.CutSuffix(name, "_seconds"); ok {
		name, in.unit = n, "s"
	}
	if n, ok := strings.CutPrefix(name, "sentinel_"); ok {
		name = "sentinel." + n
	}
	in.name = name
	return in
}

// attributeKeys maps the collector's label names to attribute keys.
var attributeKeys = map[string]attribute.Key{
	"resource":   "sentinel.resource",
	"block_type": "sentinel.block.type",
	"type":       "sentinel.block.type", // dry-run blocks' kind of rule
	"origin":     "sentinel.origin",
	"kind":       "sentinel.rule.kind",
	"rule":       "sentinel.rule.index",
	"strategy":   "sentinel.circuit_breaker.strategy",
	"state":      "sentinel.circuit_breaker.state",
	"to":         "sentinel.circuit_breaker.state",
	"source":     "sentinel.datasource.source",
}

// attributeKey is the attribute key of the collector's label name: the
// family's own, else from the table, else in the sentinel. namespace.
func (in instrument) attributeKey(label string) attribute.Key {
	if k, ok := in.attrs[label]; ok {
		return k
	}
	return attributeKey(label)
}

func attributeKey(label string) attribute.Key {
	if k, ok := attributeKeys[label]; ok {
		return k
	}
	return attribute.Key("sentinel." + label)
}
