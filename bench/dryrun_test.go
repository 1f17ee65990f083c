package bench

import (
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The cost of dry-run rules, to compare with BenchmarkEntryExitFlowQPS (a
// resource without dry-run rules pays nothing for them).

// A dry-run Direct Reject QPS rule that admits every call: the enforcing
// rule's path, plus one atomic load at exit.
func BenchmarkEntryExitFlowQPSDryRun(b *testing.B) {
	loadDryRunFlowRule(b, "bench.flow.dryrun", admitting)
	benchEntryExit(b, "bench.flow.dryrun")
}

// A dry-run rule that would refuse every call: each call is counted as a
// would-be block, logged (aggregated), and remembered until its exit.
func BenchmarkEntryExitFlowQPSDryRunWouldBlock(b *testing.B) {
	loadDryRunFlowRule(b, "bench.flow.dryrun.refusing", 0)
	benchEntryExit(b, "bench.flow.dryrun.refusing")
}

func loadDryRunFlowRule(b *testing.B, resource string, count float64) {
	b.Helper()
	if err := flow.LoadRules([]flow.Rule{{Resource: resource, Grade: flow.GradeQPS, Count: count, DryRun: true}}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = flow.LoadRules(nil) })
}
