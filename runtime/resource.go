package runtime

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/blocklog"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// MaxResources caps the number of resources with a slot chain (Java's
// MAX_SLOT_CHAIN_SIZE). Calls to resources past the cap pass unchecked and
// uncounted, and a warning is logged once.
const MaxResources = 6000

// ResourceSpec declares a resource: what generated code tells the runtime
// at init, before the first call.
type ResourceSpec struct {
	Name    string
	Traffic TrafficType
	Type    ResourceType
	// Params names the arguments a call passes with WithArgs, in order, for
	// hot-parameter rules and introspection.
	Params []string
}

// Resource is a protected resource: its declaration, its statistics and the
// slot chain bound to it. Holding a *Resource spares the name lookup that
// Entry does on every call.
type Resource struct {
	name      string
	unchecked bool // past MaxResources: no chain, no statistics

	spec    atomic.Pointer[ResourceSpec]
	cluster *ClusterNode

	mu    sync.Mutex // serialises chain binding and node creation
	bound atomic.Pointer[boundChain]
	// defaultNode is the node in the default context, the common case,
	// kept apart from nodes so that finding it is one load.
	defaultNode atomic.Pointer[DefaultNode]
	nodes       atomic.Pointer[map[*EntranceNode]*DefaultNode]

	blockHint blocklog.Hint // the block log's fast path for this resource
	// blocks counts blocked calls by BlockType, for metrics: monotonic,
	// written on the blocked path only.
	blocks [len(blockTypeNames)]atomic.Int64
}

var (
	// resourceMap maps names to *Resource. sync.Map (a concurrent hash
	// trie) keeps lookups lock-free and adding a resource O(1).
	resourceMap    sync.Map
	resourceCount  atomic.Int64
	resourceMu     sync.Mutex // serialises creation, so the cap is exact
	resourceWarned atomic.Bool
)

// Declare registers a resource, or updates the declaration of an existing
// one, and returns it. Generated code declares every annotated resource at
// init.
func Declare(spec ResourceSpec) *Resource {
	r := lookupResource(spec.Name)
	if !r.unchecked {
		s := spec
		s.Params = append([]string(nil), spec.Params...)
		r.spec.Store(&s)
	}
	return r
}

// LookupResource returns the resource named name, or nil when it was
// neither declared nor entered.
func LookupResource(name string) *Resource {
	if r, ok := resourceMap.Load(name); ok {
		return r.(*Resource)
	}
	return nil
}

// Resources returns every resource, sorted by name.
func Resources() []*Resource {
	var out []*Resource
	resourceMap.Range(func(_, r any) bool {
		out = append(out, r.(*Resource))
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// lookupResource returns the resource named name, creating it. Past
// MaxResources it returns an unchecked resource that is not kept.
func lookupResource(name string) *Resource {
	if r := LookupResource(name); r != nil {
		return r
	}
	if resourceCount.Load() >= MaxResources {
		return uncheckedResource(name)
	}
	resourceMu.Lock()
	defer resourceMu.Unlock()
	if r := LookupResource(name); r != nil {
		return r
	}
	if resourceCount.Load() >= MaxResources {
		return uncheckedResource(name)
	}
	r := &Resource{name: name, cluster: newClusterNode(name)}
	r.spec.Store(&ResourceSpec{Name: name})
	resourceMap.Store(name, r)
	resourceCount.Add(1)
	return r
}

func uncheckedResource(name string) *Resource {
	warnOnce(&resourceWarned, "sentinel: resource limit reached; calls to new resources pass unchecked",
		"limit", MaxResources, "resource", name)
	r := &Resource{name: name, unchecked: true}
	r.spec.Store(&ResourceSpec{Name: name})
	return r
}

// Name is the resource's name.
func (r *Resource) Name() string { return r.name }

// Spec is the resource's declaration.
func (r *Resource) Spec() ResourceSpec { return *r.spec.Load() }

// ClusterNode is the resource's statistics across contexts; nil for a
// resource past MaxResources.
func (r *Resource) ClusterNode() *ClusterNode { return r.cluster }

// BlockCount is the number of calls (batch counts included) that rules of
// type t blocked since the process started. It only grows; package
// runtime/metrics exports it as blocks by type.
func (r *Resource) BlockCount(t BlockType) int64 {
	if int(t) >= len(r.blocks) {
		return 0
	}
	return r.blocks[t].Load()
}

// countBlock adds n blocks by a rule of type t; an unknown type counts as
// BlockCustom.
func (r *Resource) countBlock(t BlockType, n int64) {
	if t == 0 || int(t) >= len(r.blocks) {
		t = BlockCustom
	}
	r.blocks[t].Add(n)
}

// NeedsArgs reports whether a slot bound to the resource reads call
// arguments (a hot-parameter rule applies), so that callers box arguments
// into WithArgs only then.
func (r *Resource) NeedsArgs() bool {
	if r.unchecked {
		return false
	}
	return r.chain().needsArgs
}

// node returns the resource's DefaultNode in context sc, linking a new node
// under parent's node, or under the context's entrance when there is no
// parent (Java's NodeSelectorSlot: a node is linked once, when created).
func (r *Resource) node(sc *sentinelContext, parent *SentinelEntry) *DefaultNode {
	if sc == defaultContext {
		if n := r.defaultNode.Load(); n != nil {
			return n
		}
	} else if m := r.nodes.Load(); m != nil {
		if n := (*m)[sc.entrance]; n != nil {
			return n
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if sc == defaultContext {
		if n := r.defaultNode.Load(); n != nil {
			return n
		}
	} else if m := r.nodes.Load(); m != nil {
		if n := (*m)[sc.entrance]; n != nil {
			return n
		}
	}
	n := &DefaultNode{Node: stat.NewNode(false), resource: r}
	if sc == defaultContext {
		r.defaultNode.Store(n)
	} else {
		old := r.nodes.Load()
		next := make(map[*EntranceNode]*DefaultNode, 1+lenOf(old))
		if old != nil {
			for k, v := range *old {
				next[k] = v
			}
		}
		next[sc.entrance] = n
		r.nodes.Store(&next)
	}
	if parent != nil && parent.call.node != nil {
		parent.call.node.children.add(n)
	} else {
		sc.entrance.children.add(n)
	}
	return n
}

// Node returns the resource's node in the named context, or nil.
func (r *Resource) Node(contextName string) *DefaultNode {
	if contextName == DefaultContextName {
		return r.defaultNode.Load()
	}
	m := r.nodes.Load()
	if m == nil {
		return nil
	}
	for e, n := range *m {
		if e.name == contextName {
			return n
		}
	}
	return nil
}
