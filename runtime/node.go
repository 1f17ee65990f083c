package runtime

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/capmap"
	"github.com/sentinelgen/sentinelgen/internal/clock"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// ClusterNode holds one resource's statistics summed over every context
// (Java's ClusterNode), and one statistics node per caller origin.
type ClusterNode struct {
	*stat.Node
	name string

	// origins maps origin names to their nodes. Origins often come from
	// request headers, which callers choose, so they are bounded (Java
	// keeps them all): past the bounds, further origins share overflow.
	origins     *capmap.Map[string, *stat.Node]
	overflow    atomic.Pointer[stat.Node]
	originsFull atomic.Bool // warned that the cap is reached
}

// MaxOriginsPerResource bounds the origins counted apart on one resource,
// and MaxOrigins those of every resource together. Calls from further
// origins are counted together on the resource's overflow origin node
// (OverflowOrigin), which rules for "other" origins then limit as one
// caller; a warning is logged once per resource. Origins that a rule names
// (ReserveOrigin) are counted apart past these bounds, up to
// MaxOriginsPerResource more per resource.
const (
	MaxOriginsPerResource = 1000
	MaxOrigins            = 20_000
)

// OverflowOrigin names the node that counts origins past the bounds.
const OverflowOrigin = "sentinel_overflow_origin"

// originBudget is MaxOrigins, shared by every resource's origin table.
var originBudget = &capmap.Budget{
	Entries: MaxOrigins,
	Bytes:   MaxOrigins * (capmap.EntryOverhead + 64),
}

// initClusterNode makes n, which is zero, the ClusterNode of the resource
// named name, counting on the node in m.
func initClusterNode(n *ClusterNode, m *stat.NodeMemory, name string) {
	*n = ClusterNode{
		Node: m.Init(true),
		name: name,
		origins: capmap.New[string, *stat.Node](capmap.Limits{
			Entries:  MaxOriginsPerResource,
			Bytes:    MaxOriginsPerResource * (capmap.EntryOverhead + MaxOriginBytes),
			Reserved: MaxOriginsPerResource,
			Shared:   originBudget,
		}, func(origin string) int { return len(origin) }),
	}
}

// Name is the resource's name.
func (n *ClusterNode) Name() string { return n.name }

// OriginNode returns the statistics of calls from origin, or nil when that
// origin never called. OriginNode(OverflowOrigin) is the node of the
// origins past the bounds, nil until one came.
func (n *ClusterNode) OriginNode(origin string) *stat.Node {
	if origin == OverflowOrigin {
		return n.overflow.Load()
	}
	s, _ := n.origins.Load(origin)
	return s
}

// Origins returns the origins that called the resource, sorted;
// OverflowOrigin among them once origins went past the bounds.
func (n *ClusterNode) Origins() []string {
	out := make([]string, 0, n.origins.Len()+1)
	n.origins.Range(func(k string, _ *stat.Node) bool {
		out = append(out, k)
		return true
	})
	if n.overflow.Load() != nil {
		out = append(out, OverflowOrigin)
	}
	sort.Strings(out)
	return out
}

// ReserveOrigin returns origin's node, creating it even past the origin
// bounds. Rule slots call it when they bind a rule that names an origin,
// so that the rule keeps its own count however many origins call.
func (n *ClusterNode) ReserveOrigin(origin string) *stat.Node {
	return n.originNode(origin, true)
}

// IsOverflow reports whether s is the node that counts origins past the
// bounds.
func (n *ClusterNode) IsOverflow(s *stat.Node) bool {
	return s != nil && s == n.overflow.Load()
}

// originNode returns origin's node, creating it on first use, or the
// overflow node when it does not fit.
func (n *ClusterNode) originNode(origin string, reserve bool) *stat.Node {
	if origin != OverflowOrigin {
		if s, ok := n.origins.LoadOrCreate(origin, reserve, func() *stat.Node { return stat.NewNode(false) }); ok {
			return s
		}
		if !n.originsFull.Load() { // the arguments allocate: only build them once
			warnOnce(&n.originsFull, "sentinel: origin limit reached on a resource; further origins are counted together",
				"resource", safeAttr(n.name), "limit", MaxOriginsPerResource, "counted as", OverflowOrigin)
		}
	}
	if s := n.overflow.Load(); s != nil {
		return s
	}
	n.overflow.CompareAndSwap(nil, stat.NewNode(false))
	return n.overflow.Load()
}

// DefaultNode is one resource's statistics within one context (Java's
// DefaultNode), a node of the invocation tree.
type DefaultNode struct {
	*stat.Node
	resource *Resource
	children childList
}

// Resource is the node's resource.
func (n *DefaultNode) Resource() *Resource { return n.resource }

// ClusterNode is the resource's node across contexts.
func (n *DefaultNode) ClusterNode() *ClusterNode { return n.resource.cluster }

// Children are the nodes of resources entered while this one was open.
func (n *DefaultNode) Children() []*DefaultNode { return n.children.load() }

// EntranceNode is the root of one context's invocation tree (Java's
// EntranceNode). Its figures are the sums of its children's.
type EntranceNode struct {
	name     string
	children childList
}

// Name is the context's name.
func (n *EntranceNode) Name() string { return n.name }

// Children are the nodes of resources entered directly in the context.
func (n *EntranceNode) Children() []*DefaultNode { return n.children.load() }

// Metrics sums the children's figures at time now (Java's EntranceNode
// overrides its QPS and RT getters the same way).
func (n *EntranceNode) Metrics(now int64) stat.Metrics {
	var m stat.Metrics
	var rtWeight float64
	kids := n.children.load()
	for i, c := range kids {
		cm := c.Metrics(now)
		m.PassQPS += cm.PassQPS
		m.BlockQPS += cm.BlockQPS
		m.SuccessQPS += cm.SuccessQPS
		m.ExceptionQPS += cm.ExceptionQPS
		m.Threads += cm.Threads
		m.MinutePass += cm.MinutePass
		m.MinuteBlock += cm.MinuteBlock
		m.MinuteSuccess += cm.MinuteSuccess
		m.MinuteException += cm.MinuteException
		m.AvgRT += cm.AvgRT * cm.SuccessQPS
		rtWeight += cm.SuccessQPS
		if i == 0 || cm.MinRT < m.MinRT {
			m.MinRT = cm.MinRT
		}
	}
	if rtWeight > 0 {
		m.AvgRT /= rtWeight
	}
	return m
}

// childList is a copy-on-write list of child nodes: read on every tree walk,
// written once per new (context, resource) pair.
type childList struct {
	mu    sync.Mutex
	nodes atomic.Pointer[[]*DefaultNode]
}

func (l *childList) load() []*DefaultNode {
	if p := l.nodes.Load(); p != nil {
		return *p
	}
	return nil
}

func (l *childList) add(n *DefaultNode) {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.load()
	for _, c := range old {
		if c == n {
			return
		}
	}
	next := append(old[:len(old):len(old)], n)
	l.nodes.Store(&next)
}

// inboundNode is Java's Constants.ENTRY_NODE: every inbound call of the
// process, read by system rules.
var inboundNode = stat.NewNode(true)

// InboundNode is the statistics of every inbound call, which system rules
// check.
func InboundNode() *stat.Node { return inboundNode }

// TreeNode is a snapshot of one node of the invocation tree.
type TreeNode struct {
	Kind     string       `json:"kind"` // "root", "entrance" or "resource"
	Name     string       `json:"name"`
	Metrics  stat.Metrics `json:"metrics"`
	Children []TreeNode   `json:"children,omitempty"`
}

// Tree returns a snapshot of the invocation tree: the root, one entrance per
// context, and below each the resources entered in it, nested as they were
// called.
func Tree() TreeNode {
	now := clock.Millis()
	root := TreeNode{Kind: "root", Name: "machine-root"}
	for _, e := range entrances() {
		en := TreeNode{Kind: "entrance", Name: e.name, Metrics: e.Metrics(now)}
		for _, c := range e.Children() {
			en.Children = append(en.Children, resourceTree(c, now, 0))
		}
		root.Children = append(root.Children, en)
		addMetrics(&root.Metrics, en.Metrics)
	}
	return root
}

// maxTreeDepth bounds a tree walk; the tree has no cycles (a node is linked
// once, when created), so this is only a guard.
const maxTreeDepth = 64

func resourceTree(n *DefaultNode, now int64, depth int) TreeNode {
	t := TreeNode{Kind: "resource", Name: n.resource.name, Metrics: n.Metrics(now)}
	if depth < maxTreeDepth {
		for _, c := range n.Children() {
			t.Children = append(t.Children, resourceTree(c, now, depth+1))
		}
	}
	return t
}

func addMetrics(dst *stat.Metrics, m stat.Metrics) {
	dst.PassQPS += m.PassQPS
	dst.BlockQPS += m.BlockQPS
	dst.SuccessQPS += m.SuccessQPS
	dst.ExceptionQPS += m.ExceptionQPS
	dst.Threads += m.Threads
	dst.MinutePass += m.MinutePass
	dst.MinuteBlock += m.MinuteBlock
	dst.MinuteSuccess += m.MinuteSuccess
	dst.MinuteException += m.MinuteException
}
