package runtime

import (
	"sort"
	"sync"
	"sync/atomic"
)

// The orders of Java Sentinel's slot chain (Constants.ORDER_*). Slots run
// in ascending order. The first four are built into Entry itself; the rule
// packages register the rest when imported.
const (
	OrderNodeSelector   = -10000
	OrderClusterBuilder = -9000
	OrderLog            = -8000
	OrderStatistic      = -7000
	OrderAuthority      = -6000
	OrderSystem         = -5000
	OrderParamFlow      = -3000
	OrderFlow           = -2000
	// OrderAdaptive is the adaptive concurrency limit's (package
	// runtime/adaptive, no Java counterpart): after flow, so a call flow
	// refuses or throttles never holds one of its slots, and before the
	// circuit breakers, so its refusals never reach a half-open breaker's
	// probe.
	OrderAdaptive              = -1750
	OrderDefaultCircuitBreaker = -1500
	OrderDegrade               = -1000
)

// A Slot is one link of the slot chain. The runtime asks it once per
// resource, and again after RulesChanged, what it checks for that resource:
// Bind returns a Checker, or nil when the slot has nothing to do for the
// resource. Rule slots bind only where their rules apply, so a resource pays
// for the rules it has and nothing else.
//
// Bind may be called concurrently for different resources.
type Slot interface {
	Bind(r *Resource) Checker
}

// A Checker is a slot bound to one resource.
//
// Check runs on every call, in chain order, after the call's nodes are
// selected and before its pass is counted; a non-nil result (made with
// Call.Block) blocks the call and stops the chain; Call.PassNow admits it
// without the later slots. Check sees only the passes of earlier calls.
//
// Exit runs once for every call this Checker admitted: when the call exits,
// or at once when a later slot blocks it (then Call.BlockError is set), in
// chain order, after the call's response time and outcome are counted. A
// call an earlier Checker passed early (Call.PassNow) is neither checked
// nor exited by the later ones.
//
// Neither may panic or block forever; the hot path must not allocate.
type Checker interface {
	Check(c *Call) *BlockError
	Exit(c *Call)
}

// A ResourceNamer is a Slot whose rules name resources, exactly or by
// pattern. Past MaxResources, a name that some slot's rules name still gets
// a resource of its own, so that a flood of other names cannot switch a
// rule off. NamesResource is asked once per name and rule change: a name
// no rule names is remembered as the overflow resource's until the rules
// or slots change (overflow.go), so its later calls ask nothing.
type ResourceNamer interface {
	NamesResource(name string) Naming
}

// Naming is how a slot's rules name a resource.
type Naming uint8

const (
	NotNamed       Naming = iota
	NamedByPattern        // a regex rule matches the name
	NamedExactly          // a rule names it (its resource, or a Relate rule's refResource)
)

// namedByRule is how the rules of every slot name resource name: the
// strongest naming any slot gives.
func namedByRule(name string) Naming {
	best := NotNamed
	for _, rs := range *slots.Load() {
		if n, ok := rs.slot.(ResourceNamer); ok {
			best = max(best, n.NamesResource(name))
			if best == NamedExactly {
				break
			}
		}
	}
	return best
}

// An ExitsOnCurrentRules Checker is exited on the rules in force when the
// call exits, not on those that admitted it: after a rule change, Exit
// runs the Checker its slot binds now instead of the one bound at entry.
// Java's DegradeSlot.exit looks the resource's circuit breakers up at exit,
// so a call that straddles a reload completes on the new breakers; the
// degrade slots implement it. Other Checkers are exited as they were bound,
// so that what a call took (thread counts, tokens) is given back where it
// was taken.
type ExitsOnCurrentRules interface {
	Checker
	ExitsOnCurrentRules()
}

// exitAfterReload exits c when the chain changed since c was admitted: the
// Checkers bound at entry, except those that exit on the current rules,
// then those of the current chain that do.
func exitAfterReload(c *Call) {
	for _, ck := range c.chain.checkers() {
		if _, current := ck.(ExitsOnCurrentRules); !current {
			ck.Exit(c)
		}
	}
	for _, ck := range c.res.chain().checkers() {
		if _, current := ck.(ExitsOnCurrentRules); current {
			ck.Exit(c)
		}
	}
}

// An ExitSkipper is a Checker whose Exit may have nothing to do for the
// calls it admits. SkipsExit, asked when the chain is bound, reports
// whether Exit does nothing for a call that every Checker admitted; the
// runtime then exits such calls without calling it (a call a later slot
// refuses is still exited). Checkers whose rules take nothing to give back
// (QPS limits, authority, system rules) spare every call an indirect call.
type ExitSkipper interface {
	Checker
	SkipsExit() bool
}

// ArgsReader is implemented by Checkers that read call arguments, so that
// Resource.NeedsArgs can tell callers to pass them.
type ArgsReader interface {
	NeedsArgs() bool
}

// SlotInfo describes one link of the chain.
type SlotInfo struct {
	Name    string `json:"name"`
	Order   int    `json:"order"`
	BuiltIn bool   `json:"builtIn"`
}

type registeredSlot struct {
	SlotInfo
	slot Slot
	seq  int // registration order breaks ties between equal orders
}

var (
	slotMu  sync.Mutex
	slotSeq int
	slots   atomic.Pointer[[]registeredSlot]
	// generation counts changes to slots or rules; a chain bound at an
	// older generation is bound again on its next use.
	generation atomic.Uint64
)

func init() {
	builtIns := []registeredSlot{
		{SlotInfo: SlotInfo{"NodeSelectorSlot", OrderNodeSelector, true}},
		{SlotInfo: SlotInfo{"ClusterBuilderSlot", OrderClusterBuilder, true}},
		{SlotInfo: SlotInfo{"LogSlot", OrderLog, true}},
		{SlotInfo: SlotInfo{"StatisticSlot", OrderStatistic, true}},
	}
	for i := range builtIns {
		builtIns[i].seq = i
	}
	slotSeq = len(builtIns)
	slots.Store(&builtIns)
}

// RegisterSlot adds slot s to every resource's chain at order, replacing a
// slot registered under the same name. It is Sentinel's SPI: the rule
// packages call it from init, and applications may call it at any time,
// before or after calls begin; chains already bound are rebound on their
// next call.
func RegisterSlot(name string, order int, s Slot) {
	slotMu.Lock()
	defer slotMu.Unlock()
	old := *slots.Load()
	next := make([]registeredSlot, 0, len(old)+1)
	for _, rs := range old {
		if rs.Name != name || rs.BuiltIn {
			next = append(next, rs)
		}
	}
	slotSeq++
	next = append(next, registeredSlot{SlotInfo: SlotInfo{Name: name, Order: order}, slot: s, seq: slotSeq})
	sort.SliceStable(next, func(i, j int) bool {
		if next[i].Order != next[j].Order {
			return next[i].Order < next[j].Order
		}
		return next[i].seq < next[j].seq
	})
	slots.Store(&next)
	generation.Add(1)
}

// UnregisterSlot removes the slot registered under name, if any.
func UnregisterSlot(name string) {
	slotMu.Lock()
	defer slotMu.Unlock()
	old := *slots.Load()
	next := make([]registeredSlot, 0, len(old))
	for _, rs := range old {
		if rs.Name != name || rs.BuiltIn {
			next = append(next, rs)
		}
	}
	slots.Store(&next)
	generation.Add(1)
}

// Slots lists the chain in order, built-in links included.
func Slots() []SlotInfo {
	rs := *slots.Load()
	out := make([]SlotInfo, len(rs))
	for i, s := range rs {
		out[i] = s.SlotInfo
	}
	return out
}

// RulesChanged tells the runtime that the rules behind some slot changed,
// so every chain is bound again on its next call. Rule managers call it
// after publishing a new rule set.
func RulesChanged() { generation.Add(1) }

// boundChain is the chain bound to one resource at one generation. What a
// call reads of a chain of up to three Checkers is in its first 64 bytes,
// and a boundChain takes 128, a size class whose objects start on a cache
// line: one line per call, which matters when many resources take turns.
type boundChain struct {
	gen uint64
	n   int32 // Checkers in the chain
	// exits, the Checkers an admitted call exits (those that are not
	// ExitSkippers with nothing to do), are checkers()[exitLo:exitHi]
	// when exitsRun, else exitList.
	exitLo, exitHi uint8
	exitsRun       bool
	needsArgs      bool
	short          [3]Checker // a chain of up to three

	long     []Checker // a longer chain
	exitList []Checker
	_        [16]byte // to 128 bytes
}

// checkers are the chain's Checkers, in order.
func (c *boundChain) checkers() []Checker {
	if c.n <= int32(len(c.short)) {
		return c.short[:c.n]
	}
	return c.long
}

// exits are the Checkers an admitted call exits, in order.
func (c *boundChain) exits() []Checker {
	if c.exitsRun {
		return c.checkers()[c.exitLo:c.exitHi]
	}
	return c.exitList
}

// chain returns the resource's bound chain, binding it again if slots or
// rules changed since it was bound.
func (r *Resource) chain() *boundChain {
	if c := r.bound.Load(); c.gen == generation.Load() {
		return c
	}
	return r.rebind()
}

// unbound is every resource's chain until its first call binds one: its
// generation is never reached, so chain needs no nil check.
var unbound = &boundChain{gen: ^uint64(0)}

func (r *Resource) rebind() *boundChain {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Read the generation before binding: a change during Bind bumps it
	// again, and the next call rebinds.
	gen := generation.Load()
	if c := r.bound.Load(); c != nil && c.gen == gen {
		return c
	}
	c := &boundChain{gen: gen}
	var all, exits []Checker
	var exiting []int // indexes of exits in all
	for _, rs := range *slots.Load() {
		if rs.slot == nil {
			continue
		}
		ck := rs.slot.Bind(r)
		if ck == nil {
			continue
		}
		all = append(all, ck)
		if sk, ok := ck.(ExitSkipper); !ok || !sk.SkipsExit() {
			exits = append(exits, ck)
			exiting = append(exiting, len(all)-1)
		}
		if ar, ok := ck.(ArgsReader); ok && ar.NeedsArgs() {
			c.needsArgs = true
		}
	}
	c.n = int32(len(all))
	if len(all) <= len(c.short) {
		copy(c.short[:], all)
	} else {
		c.long = all
	}
	c.exitList = exits
	if n := len(exiting); n == 0 {
		c.exitsRun = true
	} else if last := exiting[n-1]; last-exiting[0] == n-1 && last < 255 {
		// The exits are a run of the checkers (rule slots that take
		// nothing come first): read them from the same place.
		c.exitsRun, c.exitLo, c.exitHi = true, uint8(exiting[0]), uint8(last+1)
		c.exitList = nil
	}
	r.bound.Store(c)
	return c
}
