package dashboard

import (
	"github.com/sentinelgen/sentinelgen/internal/blocklog"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

// LastBlock is why a resource blocked last: the kind of rule and the rule,
// as the block log writes them.
type LastBlock struct {
	// Type is the block's kind ("flow", "degrade", "system", "authority",
	// "paramflow", "adaptive", "custom"), the metric's block_type.
	Type string `json:"type"`
	// Rule is the rule's text as the block log's rule= writes it; "" for
	// a slot that names no rule.
	Rule string `json:"rule"`
	// Cluster marks a cluster rule (a flow or hot-parameter rule in
	// cluster mode): its blocks count as Type, as in Java.
	Cluster bool `json:"cluster,omitempty"`
	// Second is the Unix ms at which the second of the block began.
	Second int64 `json:"second"`
}

// lastBlock reads r's latest block, nil when it never blocked.
func lastBlock(r *runtime.Resource) *LastBlock {
	last, ok := r.LastBlock()
	if !ok {
		return nil
	}
	out := &LastBlock{Type: last.Type.String(), Second: last.Second * 1000}
	if last.Rule != nil {
		out.Rule = blocklog.RuleText(last.Rule)
	}
	switch rule := last.Rule.(type) {
	case *flow.Rule:
		out.Cluster = rule != nil && rule.ClusterMode
	case *paramflow.Rule:
		out.Cluster = rule != nil && rule.ClusterMode
	}
	return out
}

// byType reads a count per block type, nil when every count is 0: the
// blocks (runtime.Resource.BlockCount) or would-be blocks of dry-run rules
// (DryRunBlockCount) since the process started.
func byType(count func(runtime.BlockType) int64) map[string]int64 {
	var out map[string]int64
	for t := runtime.BlockFlow; t <= runtime.BlockCustom; t++ {
		if n := count(t); n > 0 {
			if out == nil {
				out = map[string]int64{}
			}
			out[t.String()] = n
		}
	}
	return out
}
