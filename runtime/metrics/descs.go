package metrics

import "github.com/prometheus/client_golang/prometheus"

// nodeDescs are the families of one statistics node: per resource (labelled
// resource) or the process's inbound traffic (unlabelled).
type nodeDescs struct {
	pass, block, success, errors, rt, concurrent, minRT *prometheus.Desc
}

func newNodeDescs(prefix, what string, labels ...string) *nodeDescs {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prefix+name, help+" "+what+".", labels, nil)
	}
	return &nodeDescs{
		pass:       d("pass_total", "Calls admitted,"),
		block:      d("block_total", "Calls blocked by a rule,"),
		success:    d("success_total", "Calls completed (Java's success: an admitted call that exited, with or without an error),"),
		errors:     d("error_total", "Calls completed with a business error (Java's exception),"),
		rt:         d("response_time_seconds", "Response time of completed calls (sum and count; rate(sum)/rate(count) is the mean),"),
		concurrent: d("concurrent_calls", "Calls in flight,"),
		minRT:      d("min_response_time_seconds", "Smallest response time in the last whole second, absent when nothing completed in it,"),
	}
}

var (
	resourceDescs = newNodeDescs("sentinel_resource_", "per resource, over all contexts (its ClusterNode)", "resource")
	inboundDescs  = newNodeDescs("sentinel_inbound_", "of every inbound resource (Java's ENTRY_NODE, which system rules read)")

	blockByTypeDesc = prometheus.NewDesc("sentinel_resource_block_by_type_total",
		"Calls blocked, per resource and the kind of rule that blocked them.", []string{"resource", "block_type"}, nil)

	rtHistogramDesc = prometheus.NewDesc("sentinel_resource_call_duration_seconds",
		"Response times of completed calls, per resource whose histogram is on (runtime.EnableRTHistogram), in microsecond buckets; counts calls, not batch tokens.",
		[]string{"resource"}, nil)

	rulesDesc = prometheus.NewDesc("sentinel_rules",
		"Rules in force, per kind.", []string{"kind"}, nil)

	breakerDesc = prometheus.NewDesc("sentinel_circuit_breaker_state",
		"Circuit breaker state: 1 for the breaker's current state, 0 for the others. rule is the breaker's position among its resource's breakers (the degrade rules' order).",
		[]string{"resource", "rule", "strategy", "state"}, nil)

	transitionDesc = prometheus.NewDesc("sentinel_circuit_breaker_transitions_total",
		"Circuit breaker state changes, per resource and the state changed to (counted since the first collector was made).",
		[]string{"resource", "to"}, nil)

	sourceDescs = struct {
		loads, refusals, rules, lastOK, lastLoad *prometheus.Desc
	}{
		loads: prometheus.NewDesc("sentinel_datasource_loads_total",
			"Rule versions the data source loaded.", []string{"source", "kind"}, nil),
		refusals: prometheus.NewDesc("sentinel_datasource_refusals_total",
			"Rule versions the data source refused (the rules in force stayed).", []string{"source", "kind"}, nil),
		rules: prometheus.NewDesc("sentinel_datasource_rules",
			"Rules the data source's last successful load put in force.", []string{"source", "kind"}, nil),
		lastOK: prometheus.NewDesc("sentinel_datasource_last_reload_successful",
			"1 when the data source's last version loaded, 0 when it was refused or nothing loaded yet.", []string{"source", "kind"}, nil),
		lastLoad: prometheus.NewDesc("sentinel_datasource_last_reload_success_timestamp_seconds",
			"When the data source last loaded a version.", []string{"source", "kind"}, nil),
	}

	allDescs = []*prometheus.Desc{
		resourceDescs.pass, resourceDescs.block, resourceDescs.success, resourceDescs.errors,
		resourceDescs.rt, resourceDescs.concurrent, resourceDescs.minRT,
		inboundDescs.pass, inboundDescs.block, inboundDescs.success, inboundDescs.errors,
		inboundDescs.rt, inboundDescs.concurrent, inboundDescs.minRT,
		blockByTypeDesc, rtHistogramDesc, rulesDesc, breakerDesc, transitionDesc,
		originDescs.pass, originDescs.block, originDescs.concurrent,
		sourceDescs.loads, sourceDescs.refusals, sourceDescs.rules, sourceDescs.lastOK, sourceDescs.lastLoad,
		dependencyDescs.up, dependencyDescs.outages,
	}
)
