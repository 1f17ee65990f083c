package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// dependencyDescs are the servers protection relies on
// (runtime.Dependencies: the cluster client's Redis, etcd and Redis rule
// sources), so that an outage, which changes what is protected, shows.
var dependencyDescs = struct{ up, outages *prometheus.Desc }{
	up: prometheus.NewDesc("sentinel_dependency_up",
		"1 while the server answers, 0 during an outage (cluster rules checked locally, rule updates not arriving).",
		[]string{"kind", "name"}, nil),
	outages: prometheus.NewDesc("sentinel_dependency_outages_total",
		"Outages of the server since it was registered.", []string{"kind", "name"}, nil),
}

func collectDependencies(e *emitter) {
	for _, d := range runtime.Dependencies() {
		up := 1.0
		if d.Down {
			up = 0
		}
		e.send(dependencyDescs.up, prometheus.GaugeValue, up, d.Kind, d.Name)
		e.send(dependencyDescs.outages, prometheus.CounterValue, float64(d.Outages), d.Kind, d.Name)
	}
}
