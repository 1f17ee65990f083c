package flow

import "github.com/sentinelgen/sentinelgen/runtime"

// wouldBlock records that dry-run rule br refused call c, which it admits:
// the call counts as a would-be block, and the rule is as if it did not
// apply to the call for the rest of it. A gate took nothing from a call it
// refused, so the call's exit (or a later rule's refusal) must give back
// nothing: the gate remembers the call until then.
//
// What a dry-run rule keeps is only what it admitted: a QPS gate counts
// the passes it granted, a thread gate holds the calls it granted (not the
// node's calls in flight, which include those it refused), a throttling
// queue the turns it gave. So on the same traffic it counts the blocks the
// enforcing rule makes. Rules that read the resource's node statistics
// (Relate, Chain, warm-up, thread grade of an origin other than its own
// gate) see every call the dry run let through as passed, and may count
// more would-be blocks than the enforcing rule would make blocks.
func (br *boundRule) wouldBlock(c *runtime.Call) {
	if br.kind == kindGate {
		br.state.refused.Add(c)
	}
	runtime.CountDryRunBlock(c, runtime.BlockFlow, br.rule)
}
