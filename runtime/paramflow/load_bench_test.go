package paramflow_test

import (
	"fmt"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

// BenchmarkLoadRules loads 1,000 rules on 100 resources, 10 each, with an
// item each: what a load costs, the order of each resource's rules
// included.
func BenchmarkLoadRules(b *testing.B) {
	rules := make([]paramflow.Rule, 0, 1000)
	for i := range 1000 {
		r := paramflow.NewRule(fmt.Sprintf("load-bench-%d", i%100), i%3, float64(10+i))
		r.ParamFlowItemList = []paramflow.Item{{Object: fmt.Sprint(i), ClassType: "int", Count: 1}}
		rules = append(rules, r)
	}
	b.Cleanup(func() { _ = paramflow.LoadRules(nil) })
	b.ReportAllocs()
	for b.Loop() {
		if err := paramflow.LoadRules(rules); err != nil {
			b.Fatal(err)
		}
	}
}
