package runtime

import (
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/sentinelgen/sentinelgen/internal/blocklog"
	"github.com/sentinelgen/sentinelgen/internal/capmap"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// MaxResources bounds the resources that calls create by name alone
// (Java's MAX_SLOT_CHAIN_SIZE). Declared resources and resources a rule
// names are kept past it, up to MaxResources more, so a flood of new names
// (URL paths, say) cannot take their room. Calls to further names are
// counted together on one resource, OverflowResourceName, whose chain still
// applies the rules that hold for every resource (system rules, default
// circuit breakers); a warning is logged once. Java passes such calls
// unchecked.
const MaxResources = 6000

// OverflowResourceName names the resource that counts the calls to names
// past MaxResources.
const OverflowResourceName = "sentinel_overflow_resource"

// maxResourceNameBytes is the longest name a call creates a resource for
// on its own; a longer name goes to the overflow resource unless declared
// or named by a rule. resourceBytes bounds all such names together.
const (
	maxResourceNameBytes = 4 << 10
	resourceBytes        = 8 << 20
)

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
	// What every call reads comes first, in one cache line.
	bound atomic.Pointer[boundChain]
	// defaultNode is the node in the default context, the common case,
	// kept apart from nodes so that finding it is one load.
	defaultNode atomic.Pointer[DefaultNode]
	// named is the node in the first named context the resource was
	// entered in: inbound adapters enter every request in one named
	// context, whose node this finds with one load.
	named       atomic.Pointer[namedNode]
	cluster     *ClusterNode
	clusterStat *stat.Node // cluster.Node, one load nearer
	// rtHist is the response-time histogram, nil while off (the common
	// case): EnableRTHistogram.
	rtHist atomic.Pointer[rtHistogram]
	// kinds is spec's Traffic and Type, packed (setSpec): one word here
	// spares every call a load from another line.
	kinds    atomic.Uint32
	overflow bool // counts the calls to names past MaxResources
	name     string
	// declared is set by Declare; guarded by mu. An undeclared resource's
	// spec takes its first call's traffic and type instead (newNode).
	declared bool

	patternReserved atomic.Bool // counted in patternReserved

	spec atomic.Pointer[ResourceSpec]

	mu    sync.Mutex // serialises chain binding and node creation
	nodes *capmap.Map[*EntranceNode, *DefaultNode]
	// sharing is the resource's first DefaultNode, which counts on the
	// ClusterNode (newDefaultNode); guarded by mu. first is its memory,
	// in the resource's own allocation (resourceMemory), whose Node points
	// to its statistics there, zero until then.
	sharing *DefaultNode
	first   *DefaultNode

	blockHint blocklog.Hint // the block log's fast path for this resource
	// blocks counts blocked calls by BlockType, for metrics: monotonic,
	// written on the blocked path only, striped by processor so that a
	// storm of refusals on both cores shares no line; nil until the first
	// block.
	blocks atomic.Pointer[[]blockLine]
	// dryRunBlocks counts, by BlockType, the calls dry-run rules would
	// have blocked; dryRunHint is the block log's fast path for them.
	// nil until the first (dry-run rules are rare, and the counts would
	// take a line of every resource).
	dryRunBlocks atomic.Pointer[blockLine]
	dryRunHint   blocklog.Hint
}

var (
	resources = capmap.New[string, *Resource](capmap.Limits{
		Entries:  MaxResources,
		Bytes:    resourceBytes,
		KeyBytes: maxResourceNameBytes,
		Reserved: MaxResources,
	}, func(name string) int { return len(name) })
	// overflowed is set once a call was counted on the overflow resource
	// (and the warning logged): until then Resources leaves it out.
	overflowed atomic.Bool
	// patternReserved counts the resources kept past MaxResources because
	// only a regex rule matches their name.
	patternReserved atomic.Int64

	// overflowResource counts calls to names that do not fit.
	overflowResource = func() *Resource {
		r, _ := resources.LoadOrCreate(OverflowResourceName, true, func() *Resource {
			return newResource(OverflowResourceName)
		})
		r.overflow = true
		return r
	}()
)

// Declare registers a resource, or updates the declaration of an existing
// one, and returns it. Generated code declares every annotated resource at
// init. A declared resource is kept past MaxResources (see there).
func Declare(spec ResourceSpec) *Resource {
	r := resourceNamed(spec.Name, true)
	if !r.overflow {
		s := spec
		s.Params = append([]string(nil), spec.Params...)
		r.mu.Lock() // spec and kinds change together
		r.setSpec(&s)
		r.declared = true
		r.mu.Unlock()
	}
	return r
}

// LookupResource returns the resource named name, or nil when it was
// neither declared nor entered.
func LookupResource(name string) *Resource {
	r, _ := resources.Load(name)
	return r
}

// Resources returns every resource, sorted by name; the overflow resource
// is among them once a call was counted on it (until then no view lists
// a resource that nobody called).
func Resources() []*Resource {
	out := make([]*Resource, 0, resources.Len())
	listOverflow := overflowed.Load()
	resources.Range(func(_ string, r *Resource) bool {
		if !r.overflow || listOverflow {
			out = append(out, r)
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// lookupResource returns the resource named name, creating it, or the
// overflow resource when it does not fit.
func lookupResource(name string) *Resource {
	if r, ok := resources.Load(name); ok {
		return r
	}
	if knownOverflow(name) {
		return overflowResource // asked already, on the rules in force (overflow.go)
	}
	return resourceNamed(name, false)
}

// resourceNamed returns the resource named name, creating it. A declared
// name, or one a rule names, is kept past MaxResources; asking the slots
// costs only names that do not fit otherwise.
func resourceNamed(name string, declared bool) *Resource {
	gen := generation.Load() // before the rules are asked
	create := func() *Resource { return newResource(name) }
	if r, ok := resources.LoadOrCreate(name, declared, create); ok {
		return r
	}
	if !declared && len(name) <= maxResourceNameBytes {
		switch namedByRule(name) {
		case NamedExactly:
			if r, ok := resources.LoadOrCreate(name, true, create); ok {
				return r
			}
		case NamedByPattern:
			// Callers choose the names a pattern matches: they may take
			// half the reserved room at most, so names rules spell out
			// (and declarations) always find some.
			if patternReserved.Load() < MaxResources/2 {
				if r, ok := resources.LoadOrCreate(name, true, create); ok {
					if r.patternReserved.CompareAndSwap(false, true) {
						patternReserved.Add(1)
					}
					return r
				}
			}
		}
	}
	if !overflowed.Load() { // the arguments allocate: only build them once
		warnOnce(&overflowed, "sentinel: resource limit reached; calls to further resources are counted together",
			"limit", MaxResources, "resource", safeAttr(name), "counted as", OverflowResourceName)
	}
	if !declared && len(name) <= maxResourceNameBytes {
		rememberOverflow(name, gen) // longer names never ask the rules
	}
	return overflowResource
}

// resourceMemory is a resource and what its calls read of its nodes, in
// one allocation: the Resource, its ClusterNode's statistics with window
// and ring, its first DefaultNode with its statistics, and the
// ClusterNode. An object of more than 512 bytes that holds pointers
// follows an 8-byte header in its slot: with it, the 560 bytes fill a slot
// of the 576-byte size class, whose slots start on a cache line. What
// every call reads of the Resource, its first 56 bytes, is then the rest
// of the slot's first line, and the padding puts the statistics on lines
// of their own, as NewNode places them.
type resourceMemory struct {
	r       Resource
	_       [resourcePad]byte
	cluster stat.NodeMemory
	first   firstNode
	cn      ClusterNode
}

// resourcePad ends the Resource, which follows the slot's 8-byte header, on
// a line.
const resourcePad = (64 - (8+unsafe.Sizeof(Resource{}))%64) % 64

// firstNode is a resource's first DefaultNode and its statistics, 128
// bytes: what a call reads of the statistics (their last 24 bytes) and the
// node's pointer to them are one cache line.
type firstNode struct {
	s stat.Node
	d DefaultNode
	_ [(64 - (unsafe.Sizeof(stat.Node{})+unsafe.Sizeof(DefaultNode{}))%64) % 64]byte
}

func newResource(name string) *Resource {
	m := new(resourceMemory)
	r := &m.r
	initClusterNode(&m.cn, &m.cluster, name)
	r.name, r.cluster = name, &m.cn
	r.first, m.first.d.Node = &m.first.d, &m.first.s
	r.clusterStat = r.cluster.Node
	r.bound.Store(unbound)
	r.setSpec(&ResourceSpec{Name: name})
	r.nodes = capmap.New[*EntranceNode, *DefaultNode](capmap.Limits{
		Entries: MaxContexts + 2, // every context, the default and the overflow included
		Bytes:   (MaxContexts + 2) * capmap.EntryOverhead,
	}, nil)
	return r
}

func (r *Resource) setSpec(s *ResourceSpec) {
	r.spec.Store(s)
	r.kinds.Store(uint32(s.Traffic) | uint32(s.Type)<<8)
}

// Name is the resource's name.
func (r *Resource) Name() string { return r.name }

// Spec is the resource's declaration. A resource never declared takes
// its first call's traffic and type (WithTrafficType, WithResourceType),
// as Java's ClusterNode keeps the first call's resource type: what the
// dashboards and metric lines classify it by. Later calls without those
// options are still outbound and common.
func (r *Resource) Spec() ResourceSpec { return *r.spec.Load() }

// ClusterNode is the resource's statistics across contexts.
func (r *Resource) ClusterNode() *ClusterNode { return r.cluster }

// BlockCount is the number of calls (batch counts included) that rules of
// type t blocked since the process started. It only grows; package
// runtime/metrics exports it as blocks by type.
func (r *Resource) BlockCount(t BlockType) int64 {
	lines := r.blocks.Load()
	if lines == nil || int(t) >= len(blockTypeNames) {
		return 0
	}
	var n int64
	for i := range *lines {
		n += (*lines)[i][t].Load()
	}
	return n
}

// blockLine is one stripe's count of blocks by BlockType: one cache line
// (a slice of them is allocated in a size class of its own size, so each
// starts a line).
type blockLine [len(blockTypeNames)]atomic.Int64

// DryRunBlockCount is the number of calls (batch counts included) that
// dry-run rules of type t would have blocked since the process started:
// calls they admitted. It only grows, and is apart from BlockCount;
// package runtime/metrics exports it as would-be blocks by type.
func (r *Resource) DryRunBlockCount(t BlockType) int64 {
	l := r.dryRunBlocks.Load()
	if l == nil || int(t) >= len(l) {
		return 0
	}
	return l[t].Load()
}

// dryRunLine returns the resource's counts of dry-run blocks, creating
// them on the first.
func (r *Resource) dryRunLine() *blockLine {
	if l := r.dryRunBlocks.Load(); l != nil {
		return l
	}
	r.dryRunBlocks.CompareAndSwap(nil, new(blockLine))
	return r.dryRunBlocks.Load()
}

// LastBlock is the most recent block of a resource: what a page shows as
// the reason the resource blocks.
type LastBlock struct {
	Type BlockType
	// Rule is the rule that blocked (nil for a slot that names none);
	// the block log writes it as blocklog.RuleText does.
	Rule Rule
	// Second is the Unix second of the block.
	Second int64
}

// LastBlock returns the type and rule of the resource's latest block, and
// false when it never blocked. It is read from the block log's Hint, which
// every block updates anyway, so remembering it costs a blocked call
// nothing. In a second of more than blocklog.MaxKeys distinct (resource,
// type, rule, origin) combinations, it may be an earlier block of that
// second.
func (r *Resource) LastBlock() (LastBlock, bool) {
	typ, rule, sec, ok := r.blockHint.Last()
	if !ok {
		return LastBlock{}, false
	}
	last := LastBlock{Type: BlockCustom, Second: sec}
	for t := BlockFlow; t <= BlockCustom; t++ {
		if t.String() == typ {
			last.Type = t
			break
		}
	}
	last.Rule, _ = rule.(Rule)
	return last, true
}

// Protected reports whether a rule of any kind applies to the resource
// now: whether some slot binds a Checker to it (rule slots bind only
// where their rules apply; system rules apply to every resource, and
// check per call that it is inbound). A resource that is not protected is
// only observed: its calls are counted and always admitted.
func (r *Resource) Protected() bool { return r.chain().n > 0 }

// countBlock adds n blocks by a rule of type t; an unknown type counts as
// BlockCustom.
func (r *Resource) countBlock(t BlockType, n int64, stripe int) {
	if t == 0 || int(t) >= len(blockTypeNames) {
		t = BlockCustom
	}
	lines := r.blocks.Load()
	if lines == nil {
		fresh := make([]blockLine, stat.Stripes())
		if !r.blocks.CompareAndSwap(nil, &fresh) {
			lines = r.blocks.Load()
		} else {
			lines = &fresh
		}
	}
	(*lines)[stripe&(len(*lines)-1)][t].Add(n)
}

// NeedsArgs reports whether a slot bound to the resource reads call
// arguments (a hot-parameter rule applies), so that callers box arguments
// into WithArgs only then.
func (r *Resource) NeedsArgs() bool { return r.chain().needsArgs }

// Overflow reports whether r is the overflow resource, which counts the
// calls to names past MaxResources.
func (r *Resource) Overflow() bool { return r.overflow }

// node returns the resource's DefaultNode in context sc, linking a new node
// under parent's node, or under the context's entrance when there is no
// parent (Java's NodeSelectorSlot: a node is linked once, when created).
func (r *Resource) node(sc *sentinelContext, parent *SentinelEntry, c *Call) *DefaultNode {
	if sc.entrance == defaultEntrance {
		if n := r.defaultNode.Load(); n != nil {
			return n
		}
	} else if nn := r.named.Load(); nn != nil && nn.entrance == sc.entrance {
		return nn.node
	} else if n, ok := r.nodes.Load(sc.entrance); ok {
		return n
	}
	return r.newNode(sc, parent, c)
}

// namedNode is a resource's node in a named context, and that context's
// entrance.
type namedNode struct {
	entrance *EntranceNode
	node     *DefaultNode
}

// newNode is node for a context the resource has no node in yet; c is the
// call that needs it.
func (r *Resource) newNode(sc *sentinelContext, parent *SentinelEntry, c *Call) *DefaultNode {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sharing == nil && !r.declared && !r.overflow {
		// The first call of an undeclared resource classifies it (see
		// Spec): once per resource, off the path of every later call.
		s := *r.spec.Load()
		s.Traffic, s.Type = c.traffic, c.rtype
		r.spec.Store(&s)
	}
	var n *DefaultNode
	if sc.entrance == defaultEntrance {
		if n = r.defaultNode.Load(); n != nil {
			return n
		}
		n = r.newDefaultNode()
		r.defaultNode.Store(n)
	} else {
		if n, ok := r.nodes.Load(sc.entrance); ok {
			return n
		}
		// The table holds a node per entrance, and entrances are bounded:
		// it never refuses.
		n, _ = r.nodes.LoadOrCreate(sc.entrance, true, r.newDefaultNode)
		if r.named.Load() == nil {
			r.named.Store(&namedNode{entrance: sc.entrance, node: n})
		}
	}
	if parent != nil && parent.call.node != nil {
		parent.call.node.children.add(n)
	} else {
		sc.entrance.children.add(n)
	}
	return n
}

// newDefaultNode returns a node for a context new to the resource; r.mu is
// held. The first shares the ClusterNode's window, which counts the same
// calls (stat.NewSharingNode); each later one counts apart, and the first
// learns so before the later one counts any call. Each counts its calls
// in flight, and the ClusterNode sums theirs.
func (r *Resource) newDefaultNode() *DefaultNode {
	if r.sharing == nil {
		// The node and its statistics are 128 bytes of the resource's
		// own allocation, on lines of their own (firstNode): what a call
		// reads of the statistics (their last 24 bytes) and the node's
		// pointer to them are one cache line. A pointer, not an unsafe
		// cast from r: a Resource made otherwise fails here at once
		// instead of writing past its memory.
		n := r.first
		n.Node.ShareWith(r.cluster.Node)
		n.resource = r
		r.sharing = n
		return n
	}
	n := &DefaultNode{Node: stat.NewNode(false), resource: r}
	r.sharing.CountApart(n.Node)
	return n
}

// Node returns the resource's node in the named context, or nil.
func (r *Resource) Node(contextName string) *DefaultNode {
	if contextName == DefaultContextName {
		return r.defaultNode.Load()
	}
	var found *DefaultNode
	r.nodes.Range(func(e *EntranceNode, n *DefaultNode) bool {
		if e.name == contextName {
			found = n
			return false
		}
		return true
	})
	return found
}
