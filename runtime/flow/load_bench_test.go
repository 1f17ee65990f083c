package flow_test

import (
	"fmt"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// BenchmarkLoadRules loads 1,000 rules on 100 resources, 10 each: what a
// load costs, the order of each resource's rules included.
func BenchmarkLoadRules(b *testing.B) {
	rules := make([]flow.Rule, 0, 1000)
	for i := range 1000 {
		rules = append(rules, flow.Rule{Resource: fmt.Sprintf("load-bench-%d", i%100), Grade: flow.GradeQPS,
			Count: float64(10 + i), LimitApp: []string{"", "appA", "other"}[i%3]})
	}
	b.Cleanup(func() { _ = flow.LoadRules(nil) })
	b.ReportAllocs()
	for b.Loop() {
		if err := flow.LoadRules(rules); err != nil {
			b.Fatal(err)
		}
	}
}
