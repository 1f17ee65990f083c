package flow

import (
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// selectNode is the strategy half of Java's
// selectNodeByRequesterAndStrategy, for a rule that applies to the call:
//
//   - Direct: the resource's ClusterNode for "default", else the caller's
//     origin node;
//   - Relate: the ClusterNode of RefResource, nil while that resource has
//     never been declared or called (Java then passes the call);
//   - Chain: the resource's node in the call's context, only when the
//     context is named RefResource;
//   - nil for Relate or Chain without a RefResource (a thread rule: Java
//     validates refResource for QPS rules only) and for an unknown
//     strategy code: Java's selectReferenceNode finds no node, and the
//     call passes.
func (br *boundRule) selectNode(c *runtime.Call) *stat.Node {
	switch br.strategy {
	case Direct:
		return br.directNode(c)
	case Relate:
		if br.rule.RefResource == "" {
			return nil
		}
		return br.ref.node()
	case Chain:
		if br.rule.RefResource == "" || c.ContextName() != br.rule.RefResource {
			return nil
		}
		if n := c.Node(); n != nil {
			return n.Node
		}
		return nil
	}
	return nil
}

func (br *boundRule) directNode(c *runtime.Call) *stat.Node {
	if br.app == appDefault {
		return c.ClusterNode().Node
	}
	return c.OriginNode()
}

// refResource finds a Relate rule's related resource once it exists;
// resources are never removed, so the first find is kept.
type refResource struct {
	name string
	res  atomic.Pointer[runtime.Resource]
}

func (r *refResource) node() *stat.Node {
	res := r.res.Load()
	if res == nil {
		if res = runtime.LookupResource(r.name); res == nil {
			return nil
		}
		r.res.Store(res)
	}
	if cn := res.ClusterNode(); cn != nil {
		return cn.Node
	}
	return nil
}
