package cluster_test

import (
	"log"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime/cluster"
)

// Cluster rules count in Redis once the client is installed.
func Example() {
	c, err := cluster.New(cluster.Config{Addr: "redis:6379", KeyPrefix: "orders:", Timeout: 50 * time.Millisecond})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	c.Install() // cluster rules now count in Redis: one Lua round trip per check
}
