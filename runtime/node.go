package runtime

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/clock"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// ClusterNode holds one resource's statistics summed over every context
// (Java's ClusterNode), and one statistics node per caller origin.
type ClusterNode struct {
	*stat.Node
	name string

	// origins maps origin names to *stat.Node. Origins often come from
	// request headers, which callers choose, so they are capped per
	// resource (MaxOriginsPerResource); Java keeps them without bound.
	origins     sync.Map
	originCount atomic.Int64
	originMu    sync.Mutex
	originsFull atomic.Bool // warned that the cap is reached
}

// MaxOriginsPerResource caps the origins counted apart on one resource.
// Calls from further origins are counted on the resource's other nodes
// only, and a warning is logged once.
const MaxOriginsPerResource = 1000

func newClusterNode(name string) *ClusterNode {
	return &ClusterNode{Node: stat.NewNode(true), name: name}
}

// Name is the resource's name.
func (n *ClusterNode) Name() string { return n.name }

// OriginNode returns the statistics of calls from origin, or nil when that
// origin never called.
func (n *ClusterNode) OriginNode(origin string) *stat.Node {
	if s, ok := n.origins.Load(origin); ok {
		return s.(*stat.Node)
	}
	return nil
}

// Origins returns the origins that called the resource, sorted.
func (n *ClusterNode) Origins() []string {
	var out []string
	n.origins.Range(func(k, _ any) bool {
		out = append(out, k.(string))
		return true
	})
	sort.Strings(out)
	return out
}

// originNode returns origin's node, creating it on first use, or nil past
// MaxOriginsPerResource.
func (n *ClusterNode) originNode(origin string) *stat.Node {
	if s := n.OriginNode(origin); s != nil {
		return s
	}
	if n.originCount.Load() >= MaxOriginsPerResource {
		warnOnce(&n.originsFull, "sentinel: origin limit reached on a resource; further origins are not counted apart",
			"resource", n.name, "limit", MaxOriginsPerResource)
		return nil
	}
	n.originMu.Lock()
	defer n.originMu.Unlock()
	if s := n.OriginNode(origin); s != nil {
		return s
	}
	if n.originCount.Load() >= MaxOriginsPerResource {
		return nil
	}
	s := stat.NewNode(false)
	n.origins.Store(origin, s)
	n.originCount.Add(1)
	return s
}

func lenOf[K comparable, V any](m *map[K]V) int {
	if m == nil {
		return 0
	}
	return len(*m)
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
