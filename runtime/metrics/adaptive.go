package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
)

// The adaptive limiters' state, per resource with an adaptive rule. Their
// refusals are in sentinel_resource_block_by_type_total{block_type="adaptive"}.
var (
	adaptiveLimitDesc = prometheus.NewDesc("sentinel_adaptive_limit",
		"The calls in flight an adaptive concurrency rule admits now, per resource.", []string{"resource"}, nil)
	adaptiveInFlightDesc = prometheus.NewDesc("sentinel_adaptive_in_flight",
		"The calls in flight an adaptive concurrency rule counts now, per resource.", []string{"resource"}, nil)
	adaptiveMinRTTDesc = prometheus.NewDesc("sentinel_adaptive_min_rtt_seconds",
		"The unloaded response time an adaptive concurrency rule measured by its last probe, per resource (0 until measured).", []string{"resource"}, nil)
	adaptiveProbingDesc = prometheus.NewDesc("sentinel_adaptive_probing",
		"1 while an adaptive concurrency rule holds its limit at minLimit to measure the unloaded response time, else 0.", []string{"resource"}, nil)
)

func init() {
	allDescs = append(allDescs, adaptiveLimitDesc, adaptiveInFlightDesc, adaptiveMinRTTDesc, adaptiveProbingDesc)
}

func collectAdaptive(e *emitter) {
	for _, s := range adaptive.States() {
		e.send(adaptiveLimitDesc, prometheus.GaugeValue, float64(s.Limit), s.Resource)
		e.send(adaptiveInFlightDesc, prometheus.GaugeValue, float64(s.InFlight), s.Resource)
		e.send(adaptiveMinRTTDesc, prometheus.GaugeValue, s.MinRTTMs/1000, s.Resource)
		probing := 0.0
		if s.Probing {
			probing = 1
		}
		e.send(adaptiveProbingDesc, prometheus.GaugeValue, probing, s.Resource)
	}
}
