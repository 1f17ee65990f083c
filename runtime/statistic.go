package runtime

// The Statistic slot: what every admitted, blocked and completed call adds
// to its nodes. As in Java, a call counts on its DefaultNode, the resource's
// ClusterNode, its origin's node, and, when inbound, the global inbound node
// that system rules read.

func recordPass(c *Call, now int64) {
	n := int64(c.batch)
	c.node.IncThreads()
	c.node.AddPass(now, n)
	cl := c.res.cluster
	cl.IncThreads()
	cl.AddPass(now, n)
	if o := c.originNode; o != nil {
		o.IncThreads()
		o.AddPass(now, n)
	}
	if c.traffic == Inbound {
		inboundNode.IncThreads()
		inboundNode.AddPass(now, n)
	}
}

func recordBlock(c *Call, now int64) {
	n := int64(c.batch)
	c.node.AddBlock(now, n)
	c.res.cluster.AddBlock(now, n)
	if o := c.originNode; o != nil {
		o.AddBlock(now, n)
	}
	if c.traffic == Inbound {
		inboundNode.AddBlock(now, n)
	}
}

func recordCompletion(c *Call, now int64) {
	n := int64(c.batch)
	rt := max(now-c.start, 0)
	failed := c.err != nil
	c.node.AddCompletion(now, rt, n, failed)
	c.node.DecThreads()
	cl := c.res.cluster
	cl.AddCompletion(now, rt, n, failed)
	cl.DecThreads()
	if o := c.originNode; o != nil {
		o.AddCompletion(now, rt, n, failed)
		o.DecThreads()
	}
	if c.traffic == Inbound {
		inboundNode.AddCompletion(now, rt, n, failed)
		inboundNode.DecThreads()
	}
}
