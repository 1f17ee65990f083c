package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// Caller origins are labels only when WithOrigins asks: their number is the
// callers', not the service's, to bound.
//
// An origin's node keeps the runtime's second window only (no minute of
// history: that would cost every origin of every resource sixty buckets),
// so the collector cannot build exact counters for it, as it does for
// resources. It exports the previous whole second's figures as gauges
// instead, which is what rule thresholds per origin compare against.

var originDescs = struct {
	pass, block, concurrent *prometheus.Desc
}{
	pass: prometheus.NewDesc("sentinel_origin_pass_per_second",
		"Calls admitted in the previous whole second, per resource and caller origin.", []string{"resource", "origin"}, nil),
	block: prometheus.NewDesc("sentinel_origin_block_per_second",
		"Calls blocked in the previous whole second, per resource and caller origin.", []string{"resource", "origin"}, nil),
	concurrent: prometheus.NewDesc("sentinel_origin_concurrent_calls",
		"Calls in flight, per resource and caller origin.", []string{"resource", "origin"}, nil),
}

// WithOrigins also exports per-origin figures of each resource, for at
// most maxPerResource origins of each (the first by name), so that the
// number of series stays bounded whoever calls.
func WithOrigins(maxPerResource int) Option {
	return func(c *config) { c.maxOrigins = max(maxPerResource, 0) }
}

func (c *Collector) collectOrigins(e *emitter, r *runtime.Resource, cn *runtime.ClusterNode, now int64) {
	origins := cn.Origins()
	if len(origins) > c.cfg.maxOrigins {
		origins = origins[:c.cfg.maxOrigins]
	}
	for _, o := range origins {
		n := cn.OriginNode(o)
		if n == nil {
			continue
		}
		e.send(originDescs.pass, prometheus.GaugeValue, n.PreviousPassQPS(now), r.Name(), o)
		e.send(originDescs.block, prometheus.GaugeValue, n.PreviousBlockQPS(now), r.Name(), o)
		e.send(originDescs.concurrent, prometheus.GaugeValue, float64(n.Threads()), r.Name(), o)
	}
}
