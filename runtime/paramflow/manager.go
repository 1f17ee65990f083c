package paramflow

import (
	"encoding/json"
	"math"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/dryrun"
	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// compiledRule is a validated rule ready for checks. It is immutable; its
// per-value state lives in state, which an equal rule reloaded later
// inherits.
type compiledRule struct {
	rule        *Rule // in the loaded copy; BlockError.Rule returns it
	idx         int
	grade       Grade
	throttle    bool
	count       int64 // Java's (long) count
	burst       int64
	durationSec int64
	durationMs  int64
	maxQueue    int64
	items       map[key]int64
	local       bool             // false: a cluster rule without local fallback, which limits nothing
	pat         ruleutil.Pattern // regex rules: the pattern's place in the set
	state       *ruleState
	dry         bool // a dry-run rule: it admits the calls it refuses
}

// ruleState is a rule's per-value state: one cache for an exact rule, one
// per matched resource for a regex rule (as Java keeps metrics per
// resource).
type ruleState struct {
	capacity int
	exact    *cache
	mu       sync.Mutex
	byName   map[string]*cache
	// refused holds the calls in flight a dry-run thread-grade rule
	// refused and let through: they hold no thread count to give back.
	refused dryrun.Refused[runtime.Call]
}

func (s *ruleState) forResource(name string, regex bool) *cache {
	if !regex {
		return s.exact
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.byName[name]
	if c == nil {
		c = newCache(s.capacity)
		s.byName[name] = c
	}
	return c
}

// ruleSet is the published, immutable set of rules in force.
type ruleSet struct {
	rules      []Rule
	byResource map[string][]*compiledRule // in Java's order
	regex      []*compiledRule            // pattern by pattern, each in Java's order
	set        *ruleutil.PatternSet       // the regex rules' patterns, matched together
	states     map[string]*ruleState      // by rule identity, for reloads
	// ruleOf is each identity's rule in force, DryRun included: an equal
	// rule reloaded keeps it, so that BlockError.Rule and the block log's
	// key survive the reload.
	ruleOf map[string]*Rule
}

var (
	loadMu   sync.Mutex
	inForce  atomic.Pointer[ruleSet]
	property = runtime.NewProperty(LoadRules)
)

// Property is the hot-parameter rules' property, which data sources update.
func Property() *runtime.Property[[]Rule] { return property }

// Rules returns a copy of the rules in force.
func Rules() []Rule {
	s := inForce.Load()
	if s == nil {
		return nil
	}
	out := make([]Rule, len(s.rules))
	for i, r := range s.rules {
		out[i] = copyRule(r)
	}
	return out
}

func copyRule(r Rule) Rule {
	if r.ParamIdx != nil {
		r.ParamIdx = Index(*r.ParamIdx)
	}
	r.ParamFlowItemList = append([]Item(nil), r.ParamFlowItemList...)
	if r.ClusterConfig != nil {
		cc := *r.ClusterConfig
		r.ClusterConfig = &cc
	}
	return r
}

// LoadRules replaces the hot-parameter rules in force with rules, or
// refuses the whole set (the rules in force stay) with a
// runtime.RuleErrors naming each invalid rule's index, field and reason.
// nil or empty clears the rules. A rule equal to one in force keeps its
// per-value state (tokens, thread counts); DryRun aside.
func LoadRules(rules []Rule) error {
	errs, patterns := validateAll(rules)
	if len(errs) > 0 {
		return errs
	}
	loadMu.Lock()
	defer loadMu.Unlock()
	var old map[string]*ruleState
	var oldRules map[string]*Rule
	if s := inForce.Load(); s != nil {
		old, oldRules = s.states, s.ruleOf
	}
	if len(rules) == 0 {
		inForce.Store(nil)
		runtime.RulesChanged()
		return nil
	}
	s := &ruleSet{
		byResource: map[string][]*compiledRule{},
		states:     map[string]*ruleState{},
		set:        patterns.Set(),
		ruleOf:     map[string]*Rule{},
	}
	for _, r := range rules {
		s.rules = append(s.rules, copyRule(r))
	}
	for i := range s.rules {
		s.rules[i].LimitApp = ruleutil.LimitApp(s.rules[i].LimitApp)
	}
	// Each resource's rules in Java's order (order.go); regex rules
	// pattern by pattern, patterns in the order their first rule was
	// loaded (Java keeps patterns in a HashMap keyed by identity, whose
	// order is unpredictable), each pattern's rules in Java's order.
	byPattern := map[string][]*compiledRule{}
	for _, group := range javaOrder(s.rules) {
		for _, i := range group {
			r := &s.rules[i]
			id := identity(r)
			if s.states[id] != nil {
				continue // counts 0 and -0, two rules to Java, are one here
			}
			cr := compileWith(r, patterns)
			if p := oldRules[id]; p != nil && p.DryRun == r.DryRun {
				cr.rule = p
			}
			s.ruleOf[id] = cr.rule
			st := old[id]
			if st == nil {
				st = &ruleState{capacity: capacityFor(cr.durationSec), byName: map[string]*cache{}}
				if !r.Regex {
					st.exact = newCache(st.capacity)
				}
			}
			s.states[id] = st
			cr.state = st
			if r.Regex {
				byPattern[r.Resource] = append(byPattern[r.Resource], cr)
			} else {
				s.byResource[r.Resource] = append(s.byResource[r.Resource], cr)
			}
		}
	}
	for i := range s.rules {
		if p := s.rules[i].Resource; s.rules[i].Regex && byPattern[p] != nil {
			s.regex = append(s.regex, byPattern[p]...)
			delete(byPattern, p)
		}
	}
	inForce.Store(s)
	runtime.RulesChanged()
	return nil
}

// identity is the text of a rule, so that equal rules compare equal.
// DryRun is left out: switching it keeps the rule's state.
func identity(r *Rule) string {
	id := *r
	id.DryRun = false
	b, _ := json.Marshal(&id)
	return string(b)
}

// compile builds a rule's compiled form, without a regex rule's pattern
// (which belongs to a rule set).
func compile(r *Rule) *compiledRule { return compileWith(r, nil) }

// compileWith builds a rule's compiled form; a regex rule's pattern comes
// from patterns, which validation filled.
func compileWith(r *Rule, patterns *ruleutil.Regexes) *compiledRule {
	cr := &compiledRule{
		rule:        r,
		idx:         *r.ParamIdx,
		grade:       r.Grade,
		throttle:    r.ControlBehavior == BehaviorRateLimiter,
		count:       wholeCount(r.Count),
		burst:       min(r.BurstCount, 1<<53),
		durationSec: max(r.DurationInSec, 1),
		maxQueue:    r.MaxQueueingTimeMs,
		dry:         r.DryRun,
		local:       !(r.ClusterMode && r.Grade == GradeQPS) || (r.ClusterConfig != nil && r.ClusterConfig.FallbackToLocalWhenFail),
	}
	cr.durationMs = cr.durationSec * 1000
	if r.Regex {
		cr.pat = patterns.Pattern(r.Resource) // validated: compiled and built already
	}
	if len(r.ParamFlowItemList) > 0 {
		cr.items = map[key]int64{}
		for _, it := range r.ParamFlowItemList {
			keys, _ := itemKeys(it)
			for _, k := range keys {
				cr.items[k] = it.Count // later items win, as Java's HashMap
			}
		}
	}
	return cr
}

// wholeCount is Java's (long) cast, bounded so that count+burst cannot
// overflow.
func wholeCount(c float64) int64 {
	const limit = 1 << 53
	return int64(math.Min(math.Trunc(c), limit))
}

// limitFor is the limit for one value: its item's count, or the rule's.
func (cr *compiledRule) limitFor(k key) int64 {
	if cr.items != nil {
		if n, ok := cr.items[k]; ok {
			return n
		}
	}
	return cr.count
}
