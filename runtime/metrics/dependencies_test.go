package metrics_test

import (
	"errors"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// An outage of a server protection relies on (the cluster's Redis, a
// rule source's etcd) is a metric while it lasts, and counted after.
func TestDependencyOutages(t *testing.T) {
	d := runtime.NewDependency("cluster redis", "127.0.0.1:6379", "cluster rules are checked locally")
	t.Cleanup(d.Close)
	reg, _ := newRegistry(t)
	d.Down(errors.New("connection refused"))
	gatherAndCompare(t, reg, `
# HELP sentinel_dependency_outages_total Outages of the server since it was registered.
# TYPE sentinel_dependency_outages_total counter
sentinel_dependency_outages_total{kind="cluster redis",name="127.0.0.1:6379"} 1
# HELP sentinel_dependency_up 1 while the server answers, 0 during an outage (cluster rules checked locally, rule updates not arriving).
# TYPE sentinel_dependency_up gauge
sentinel_dependency_up{kind="cluster redis",name="127.0.0.1:6379"} 0
`, "sentinel_dependency_up", "sentinel_dependency_outages_total")
	d.Up()
	gatherAndCompare(t, reg, `
# HELP sentinel_dependency_up 1 while the server answers, 0 during an outage (cluster rules checked locally, rule updates not arriving).
# TYPE sentinel_dependency_up gauge
sentinel_dependency_up{kind="cluster redis",name="127.0.0.1:6379"} 1
`, "sentinel_dependency_up")
}
