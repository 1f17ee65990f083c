package stat_test

import (
	"fmt"

	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// A resource's first context counts in the resource's own window; when a
// second context calls it, the first node counts apart, keeping what it
// counted.
func ExampleNewSharingNode() {
	const now = 1_700_000_000_000
	resource := stat.NewNode(true)         // the ClusterNode: a second and a minute
	first := stat.NewSharingNode(resource) // the first context's DefaultNode
	tick := stat.TickAt(now)
	tick.PassPair(first, resource, 3)
	fmt.Println(first.PassQPS(now), resource.PassQPS(now), first.Shares())

	second := stat.NewNode(false) // a second context's DefaultNode
	first.CountApart(second)
	tick.PassPair(second, resource, 2)
	fmt.Println(first.PassQPS(now), second.PassQPS(now), resource.PassQPS(now), first.Shares())
	// Output:
	// 3 3 true
	// 3 2 5 false
}
