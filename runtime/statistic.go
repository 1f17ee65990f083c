package runtime

import "github.com/sentinelgen/sentinelgen/runtime/stat"

// The Statistic slot: what every admitted, blocked and completed call adds
// to its nodes. As in Java, a call counts on its DefaultNode, the resource's
// ClusterNode, its origin's node, and, when inbound, the global inbound node
// that system rules read. While a resource is called in one context only,
// its DefaultNode counts in the ClusterNode's window (stat.NewSharingNode),
// so a call writes one window for the two.

func recordPass(c *Call, now int64) {
	t := tickOf(c, now)
	n := int64(c.batch)
	t.PassPair(c.node.Node, c.res.clusterStat, n)
	if c.sc != nil && c.sc.origin != "" { // most calls have none: spare the call
		if o := c.OriginNode(); o != nil {
			t.Pass(o, n)
		}
	}
	if c.traffic == Inbound {
		t.Pass(inboundNode, n)
	}
}

// tickOf locates now on the call's stripe, which enter set before the
// checks.
func tickOf(c *Call, now int64) stat.Tick {
	return stat.TickAtStripe(now, int(entryOf(c).stripe))
}

func recordBlock(c *Call, now int64) {
	t := tickOf(c, now)
	n := int64(c.batch)
	c.res.countBlock(c.BlockError().blockType, n, t.Stripe())
	t.BlockPair(c.node.Node, c.res.clusterStat, n)
	if c.sc != nil && c.sc.origin != "" { // most calls have none: spare the call
		if o := c.OriginNode(); o != nil {
			t.Block(o, n)
		}
	}
	if c.traffic == Inbound {
		t.Block(inboundNode, n)
	}
}

func recordCompletion(c *Call, now int64) {
	t := stat.TickAtStripe(now, c.Stripe())
	n := int64(c.batch)
	rt := max(now-c.start, 0)
	failed := c.Err() != nil
	t.CompletePair(c.node.Node, c.res.clusterStat, rt, n, failed)
	if c.sc != nil && c.sc.origin != "" { // most calls have none: spare the call
		if o := c.OriginNode(); o != nil {
			t.Complete(o, rt, n, failed)
		}
	}
	if c.traffic == Inbound {
		t.Complete(inboundNode, rt, n, failed)
	}
}
