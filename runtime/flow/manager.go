package flow

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/dryrun"
	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// DefaultColdFactor is Java's csp.sentinel.flow.cold.factor default.
const DefaultColdFactor = 3

var (
	// loadMu serialises loads; the rules in force are read without it.
	loadMu     sync.Mutex
	coldFactor = DefaultColdFactor
	current    atomic.Pointer[ruleSet]

	property = runtime.NewProperty(LoadRules)
)

// ruleSet is an immutable compiled rule set, published whole.
type ruleSet struct {
	rules []Rule                 // as in force, for Rules
	exact map[string][]*compiled // by resource name, in Java's order
	regex []*compiled            // pattern by pattern, each in Java's order
	refs  map[string]bool        // the refResources of Relate rules
	byKey map[ruleKey]*compiled
	// patterns are the regex rules' patterns, matched together (set).
	patterns *ruleutil.Regexes
	set      *ruleutil.PatternSet
}

// compiled is one rule in force.
type compiled struct {
	rule   *Rule            // what BlockError.Rule returns
	pat    ruleutil.Pattern // regex rules: the pattern's place in the set
	limit  int64            // admissionLimit(count)
	states *stateTable
	// coldFactor is the factor in force when the rule was loaded (Bind
	// runs outside loadMu).
	coldFactor int
}

// stateTable holds a rule's controller state per resource it applies to
// (a regex rule may apply to many). A rule that stays in force, unchanged,
// across a load keeps its table: its warm-up bucket, throttling queue and
// admission counts carry on. A changed or new rule starts afresh, as every
// Java controller does on every load.
type stateTable struct {
	mu         sync.Mutex
	byResource map[string]*resState
}

// resState is one rule's controller state on one resource; which fields
// are set depends on the rule's grade, behavior and strategy.
type resState struct {
	gates        *gates
	warm         *warmUp
	throttle     *throttle
	warmThrottle *warmUpThrottle
	// borrow records what prioritized calls borrowed from a Relate or
	// Chain rule's node (occupy.go), made on the first borrow.
	borrow atomic.Pointer[stat.Window]
	// refused holds the calls in flight that a dry-run gate refused and
	// let through, so that their exit gives back nothing (dryrun.go).
	refused dryrun.Refused[runtime.Call]
	// share is the local check against another count than the rule's,
	// for a cluster rule whose checker said so (fallback.go); coldFactor
	// builds its warm-up controllers.
	share      atomic.Pointer[shareState]
	coldFactor int
	// blocked is what the rule's refusals on the resource return
	// (boundRule.refusal).
	blocked atomic.Pointer[runtime.BlockError]
}

func (t *stateTable) get(resource string, create func() *resState) *resState {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.byResource[resource]; s != nil {
		return s
	}
	if t.byResource == nil {
		t.byResource = make(map[string]*resState)
	}
	s := create()
	t.byResource[resource] = s
	return s
}

// LoadRules replaces the flow rules in force with rules, after checking
// every one (see ValidateRules). An invalid set is refused whole, with a
// runtime.RuleErrors naming each bad rule's index, field and reason, and
// the rules in force stay. nil or empty clears the rules.
//
// Rules are checked in Java Sentinel's order (see the package doc), not in
// load order. A rule equal to an earlier one by Java's FlowRule.equals is
// dropped, as Java's HashSet drops it; two rules that differ only in
// DryRun are equal, and the first is kept.
func LoadRules(rules []Rule) error {
	errs, patterns := validate(rules)
	if len(errs) > 0 {
		return errs
	}
	loadMu.Lock()
	install(rules, patterns)
	loadMu.Unlock()
	runtime.RulesChanged()
	return nil
}

// install compiles rules (already valid) and publishes them, taking regex
// rules' patterns from what validation compiled and built (nil: compile
// and build them). loadMu is held.
//
// Each resource's rules are kept in the order Java checks them
// (javaOrder); regex rules pattern by pattern, patterns in the order their
// first rule was loaded (Java keeps patterns in a HashMap keyed by
// identity, whose order is unpredictable), each pattern's rules in Java's
// order. Rules keeps load order.
func install(rules []Rule, patterns *ruleutil.Regexes) {
	old := current.Load()
	if patterns == nil {
		patterns = buildPatterns(rules)
	}
	next := &ruleSet{exact: make(map[string][]*compiled), byKey: make(map[ruleKey]*compiled), refs: make(map[string]bool),
		patterns: patterns, set: patterns.Set()}
	inForce := make([]Rule, len(rules))
	for i := range rules {
		inForce[i] = rules[i].normalized()
	}
	kept := make([]bool, len(inForce))
	byPattern := make(map[string][]*compiled)
	for _, group := range javaOrder(inForce) {
		for _, i := range group {
			r := &inForce[i]
			k := keyOf(r, coldFactor)
			if next.byKey[k] != nil {
				continue // counts 0 and -0, two rules to Java, are one here
			}
			cr := &compiled{rule: r, limit: admissionLimit(r.Count), states: &stateTable{}, coldFactor: coldFactor}
			if old != nil {
				if prev := old.byKey[k]; prev != nil {
					cr.states = prev.states
					if prev.rule.DryRun == r.DryRun {
						// The same rule: BlockError.Rule and the block log's
						// key stay the same across the reload, so a reload
						// of unchanged rules starts no new block-log line.
						cr.rule = prev.rule
					}
				}
			}
			if r.Regex {
				cr.pat = patterns.Pattern(r.Resource) // validated: compiled and built already
				byPattern[r.Resource] = append(byPattern[r.Resource], cr)
			} else {
				next.exact[r.Resource] = append(next.exact[r.Resource], cr)
			}
			if r.Strategy == Relate && r.RefResource != "" {
				next.refs[r.RefResource] = true
			}
			next.byKey[k] = cr
			kept[i] = true
		}
	}
	for i := range inForce {
		if !kept[i] {
			continue
		}
		next.rules = append(next.rules, inForce[i])
		if p := inForce[i].Resource; inForce[i].Regex && byPattern[p] != nil {
			next.regex = append(next.regex, byPattern[p]...)
			delete(byPattern, p)
		}
	}
	current.Store(next)
}

// Rules returns a copy of the rules in force, with Java's defaults filled
// in (limitApp "default", warmUpPeriodSec 10, maxQueueingTimeMs 500) and
// exact duplicates removed.
func Rules() []Rule {
	rs := current.Load()
	if rs == nil || len(rs.rules) == 0 {
		return nil
	}
	out := make([]Rule, len(rs.rules))
	for i, r := range rs.rules {
		if r.ClusterConfig != nil {
			cc := *r.ClusterConfig
			r.ClusterConfig = &cc
		}
		out[i] = r
	}
	return out
}

// Property is the flow rules' property (Java's register2Property target):
// data sources call its Update, which loads through LoadRules.
func Property() *runtime.Property[[]Rule] { return property }

// ColdFactor is the cold factor of warm-up rules (Java's
// csp.sentinel.flow.cold.factor): a cold resource admits count/ColdFactor.
func ColdFactor() int {
	loadMu.Lock()
	defer loadMu.Unlock()
	return coldFactor
}

// SetColdFactor changes the cold factor of warm-up rules, 3 by default.
// Values <= 1 are refused (Java falls back to 3 for them). The rules in
// force are compiled again with the new factor, so warm-up rules start
// cold again.
func SetColdFactor(f int) error {
	if f <= 1 || f > math.MaxInt32 {
		return fmt.Errorf("flow: cold factor %d must be > 1 (and fit Java's int)", f)
	}
	loadMu.Lock()
	changed := f != coldFactor
	coldFactor = f
	if rs := current.Load(); changed && rs != nil {
		install(rs.rules, rs.patterns) // the same rules: the same patterns
	}
	loadMu.Unlock()
	if changed {
		runtime.RulesChanged()
	}
	return nil
}

// buildPatterns compiles and builds the patterns of rules, which are
// valid: what validate returns for them.
func buildPatterns(rules []Rule) *ruleutil.Regexes {
	x := &ruleutil.Regexes{}
	for i := range rules {
		if rules[i].Regex {
			_ = x.Compile(rules[i].Resource)
		}
	}
	_ = x.Build()
	return x
}
