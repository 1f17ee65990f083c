package runtime

import "github.com/sentinelgen/sentinelgen/runtime/stat"

// The Statistic slot: what every admitted, blocked and completed call adds
// to its nodes. As in Java, a call counts on its DefaultNode, the resource's
// ClusterNode, its origin's node, and, when inbound, the global inbound node
// that system rules read.

func recordPass(c *Call, now int64) {
	t := stat.TickAt(now)
	n := int64(c.batch)
	c.node.CountPass(&t, n)
	c.res.cluster.CountPass(&t, n)
	if o := c.OriginNode(); o != nil {
		o.CountPass(&t, n)
	}
	if c.traffic == Inbound {
		inboundNode.CountPass(&t, n)
	}
}

func recordBlock(c *Call, now int64) {
	t := stat.TickAt(now)
	n := int64(c.batch)
	c.res.countBlock(c.BlockError().blockType, n)
	c.node.CountBlock(&t, n)
	c.res.cluster.CountBlock(&t, n)
	if o := c.OriginNode(); o != nil {
		o.CountBlock(&t, n)
	}
	if c.traffic == Inbound {
		inboundNode.CountBlock(&t, n)
	}
}

func recordCompletion(c *Call, now int64) {
	t := stat.TickAt(now)
	n := int64(c.batch)
	rt := max(now-c.start, 0)
	failed := c.Err() != nil
	c.node.CountCompletion(&t, rt, n, failed)
	c.res.cluster.CountCompletion(&t, rt, n, failed)
	if o := c.OriginNode(); o != nil {
		o.CountCompletion(&t, rt, n, failed)
	}
	if c.traffic == Inbound {
		inboundNode.CountCompletion(&t, rt, n, failed)
	}
}
