package sentineltest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// slotName is the name the forcing slot is registered under while any
// block is in place.
const slotName = "SentinelTestBlockSlot"

// slotOrder puts the forcing slot after the built-in slots and ahead of
// every rule slot, so a forced block touches no rule's state.
const slotOrder = runtime.OrderStatistic + 1

// Rule is the rule of a block placed by Block: BlockError.Rule returns a
// *Rule for such blocks, so a handler that prints the rule shows it.
type Rule struct {
	Resource  string
	BlockType runtime.BlockType
}

// ResourceName is the blocked resource.
func (r Rule) ResourceName() string { return r.Resource }

// String says the block is a sentineltest block, of which type.
func (r Rule) String() string {
	return fmt.Sprintf("sentineltest block of %q (%s)", r.Resource, r.BlockType)
}

// forced is one block a test placed.
type forced struct {
	owner string // the test's name
	rule  *Rule
}

var (
	blockMu sync.Mutex
	// placed holds each resource's blocks in the order tests placed them;
	// the last one is in force. Guarded by blockMu.
	placed = map[string][]forced{}
	// inForce is the rule in force for each blocked resource, published
	// copy-on-write for the slot's Bind.
	inForce atomic.Pointer[map[string]*Rule]
	// slotIn says the slot is registered. Guarded by blockMu.
	slotIn bool
)

// Block makes every call of resource fail with a *runtime.BlockError of
// blockType until the test ends. It loads no rule: see the package
// documentation for what the block looks like to handlers.
//
// Block fails the test when resource is empty, when blockType is not one
// of runtime.BlockFlow ... runtime.BlockCustom, or when a test running at
// the same time, other than tb or a test tb runs under, has blocked the
// same resource.
func Block(tb testing.TB, resource string, blockType runtime.BlockType) {
	tb.Helper()
	if resource == "" {
		tb.Fatal("sentineltest.Block: empty resource name")
		return // for a testing.TB whose Fatal returns
	}
	if blockType < runtime.BlockFlow || blockType > runtime.BlockCustom {
		tb.Fatalf("sentineltest.Block(%q): %v is not a block type (runtime.BlockFlow ... runtime.BlockCustom)", resource, blockType)
		return
	}
	name := tb.Name()
	if other, ok := place(name, resource, blockType); !ok {
		tb.Fatalf("sentineltest.Block(%q): %s blocked it already and runs at the same time; tests running in parallel must block distinct resources", resource, other)
		return
	}
	tb.Cleanup(func() { lift(name, resource) })
}

// OpenBreaker forces resource's circuit breaker open until the test ends:
// it is Block(tb, resource, runtime.BlockDegrade). The breaker never
// half-opens, and degrade.Breakers does not list it.
func OpenBreaker(tb testing.TB, resource string) {
	tb.Helper()
	Block(tb, resource, runtime.BlockDegrade)
}

// place records the named test's block of resource; it refuses, naming
// the other test, when an unrelated running test blocked it already.
func place(name, resource string, t runtime.BlockType) (other string, ok bool) {
	blockMu.Lock()
	defer blockMu.Unlock()
	for _, f := range placed[resource] {
		if !within(name, f.owner) {
			return f.owner, false
		}
	}
	placed[resource] = append(placed[resource], forced{owner: name, rule: &Rule{Resource: resource, BlockType: t}})
	publish()
	return "", true
}

// lift removes the named test's blocks of resource.
func lift(name, resource string) {
	blockMu.Lock()
	defer blockMu.Unlock()
	kept := placed[resource][:0]
	for _, f := range placed[resource] {
		if f.owner != name {
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		delete(placed, resource)
	} else {
		placed[resource] = kept
	}
	publish()
}

// publish makes the blocks in placed the ones in force: it registers the
// slot while there are blocks, removes it when there are none, and has
// every chain bound again. blockMu is held.
func publish() {
	next := make(map[string]*Rule, len(placed))
	for resource, fs := range placed {
		next[resource] = fs[len(fs)-1].rule
	}
	inForce.Store(&next)
	switch {
	case len(next) == 0:
		runtime.UnregisterSlot(slotName)
		slotIn = false
	case !slotIn:
		runtime.RegisterSlot(slotName, slotOrder, slot{})
		slotIn = true
	default:
		runtime.RulesChanged()
	}
}

// slot binds a checker to blocked resources only.
type slot struct{}

func (slot) Bind(r *runtime.Resource) runtime.Checker {
	m := inForce.Load()
	if m == nil {
		return nil
	}
	if rule := (*m)[r.Name()]; rule != nil {
		return checker{rule}
	}
	return nil
}

// checker refuses every call of one blocked resource.
type checker struct{ rule *Rule }

func (k checker) Check(c *runtime.Call) *runtime.BlockError {
	return c.Block(k.rule.BlockType, k.rule, nil).WithMessage("forced by sentineltest")
}

func (checker) Exit(*runtime.Call) {}

// SkipsExit: the checker admits no call.
func (checker) SkipsExit() bool { return true }
