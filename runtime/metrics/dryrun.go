package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// dryRunBlocksDesc is the would-be blocks of dry-run rules: calls such a
// rule would have refused and admitted. A series appears with the first
// would-be block of its resource and kind.
var dryRunBlocksDesc = prometheus.NewDesc("sentinel_dry_run_blocks_total",
	"Calls that dry-run rules would have blocked and admitted, per resource and the kind of rule.", []string{"resource", "type"}, nil)

func init() { allDescs = append(allDescs, dryRunBlocksDesc) }

// collectDryRun sends r's would-be blocks, by rule kind, those it has,
// labelled with name, the resource's label value.
func collectDryRun(e *emitter, r *runtime.Resource, name string) {
	for bt := runtime.BlockFlow; bt <= runtime.BlockCustom; bt++ {
		if n := r.DryRunBlockCount(bt); n > 0 {
			e.send(dryRunBlocksDesc, prometheus.CounterValue, float64(n), name, bt.String())
		}
	}
}
