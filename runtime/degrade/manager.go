package degrade

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// ruleSet is one loaded rule set with its breakers. It is immutable once
// published, except lazy, which grows as regex and default rules meet new
// resources.
type ruleSet struct {
	rules   []Rule     // normalized, in load order; breakers point into it
	keys    []ruleKey  // by index: what makes a breaker reusable
	byIndex []*breaker // by index: the breaker of an exact-resource rule

	exact    map[string][]*breaker // exact-resource rules' breakers, by resource
	patterns []pattern             // regex rules
	set      *ruleutil.PatternSet  // their patterns, matched together
	defaults []int                 // indexes of default ("*") rules

	mu   sync.Mutex
	lazy map[lazyKey]*breaker // regex and default rules' breakers, per resource
}

type pattern struct {
	idx int
	pat ruleutil.Pattern
}

// ruleKey identifies a rule across reloads: its normalized value (Java's
// DegradeRule.equals covers every field) and, for equal rules in one list,
// which of them it is, so that duplicates keep distinct breakers.
type ruleKey struct {
	rule Rule
	n    int
}

type lazyKey struct {
	idx      int
	resource string
}

var (
	loadMu   sync.Mutex
	current  atomic.Pointer[ruleSet]
	property = runtime.NewProperty(LoadRules)
)

// LoadRules replaces the degrade rules in force with rules, after checking
// every one of them (see ValidateRules). An invalid set is refused whole
// and the rules in force stay. A rule equal to one in force (all fields
// equal, defaults filled in, DryRun aside) keeps that rule's breakers and
// their state;
// every other rule starts with closed breakers. Nil or empty clears.
func LoadRules(rules []Rule) error {
	patterns, err := validate(rules)
	if err != nil {
		return err
	}
	loadMu.Lock()
	defer loadMu.Unlock()
	current.Store(build(rules, patterns, current.Load()))
	runtime.RulesChanged()
	return nil
}

// Rules returns a copy of the rules in force, with Java's defaults filled
// in (limitApp "default", minRequestAmount 5, statIntervalMs 1000).
func Rules() []Rule {
	s := current.Load()
	if s == nil || len(s.rules) == 0 {
		return nil
	}
	return append([]Rule(nil), s.rules...)
}

// Property is the degrade rules' property, which data sources update
// (Java's DegradeRuleManager.register2Property).
func Property() *runtime.Property[[]Rule] { return property }

func build(rules []Rule, patterns *ruleutil.Regexes, old *ruleSet) *ruleSet {
	n := &ruleSet{
		set:     patterns.Set(),
		rules:   make([]Rule, len(rules)),
		keys:    make([]ruleKey, len(rules)),
		byIndex: make([]*breaker, len(rules)),
		exact:   map[string][]*breaker{},
		lazy:    map[lazyKey]*breaker{},
	}
	seen := map[Rule]int{}
	for i := range rules {
		r := rules[i].normalized()
		n.rules[i] = r
		// DryRun is no part of a rule's identity: switching it keeps the
		// breaker and its state.
		id := r
		id.DryRun = false
		n.keys[i] = ruleKey{id, seen[id]}
		seen[id]++
	}

	reusable := map[ruleKey]*breaker{}
	if old != nil {
		for i, b := range old.byIndex {
			if b != nil {
				reusable[old.keys[i]] = b
			}
		}
	}
	perResource := map[ruleKey]int{} // regex and default rules: key -> index
	for i := range n.rules {
		r := &n.rules[i]
		switch {
		case r.Regex:
			n.patterns = append(n.patterns, pattern{i, patterns.Pattern(r.Resource)})
			perResource[n.keys[i]] = i
		case r.IsDefault():
			n.defaults = append(n.defaults, i)
			perResource[n.keys[i]] = i
		default:
			b := reusable[n.keys[i]]
			if b == nil {
				b = newBreaker(r, r.Resource)
			} else {
				b.setRule(r)
			}
			n.byIndex[i] = b
			n.exact[r.Resource] = append(n.exact[r.Resource], b)
		}
	}

	// Per-resource breakers of unchanged regex and default rules carry
	// over too. A Bind still running against the old set may add one after
	// this copy; that resource then starts with a fresh, closed breaker.
	if old != nil {
		old.mu.Lock()
		for k, b := range old.lazy {
			if j, ok := perResource[old.keys[k.idx]]; ok {
				b.setRule(&n.rules[j])
				n.lazy[lazyKey{j, k.resource}] = b
			}
		}
		old.mu.Unlock()
	}
	return n
}

// perResource returns the breaker of regex or default rule idx for
// resource, creating it: each resource gets a breaker of its own.
func (s *ruleSet) perResource(idx int, resource string) *breaker {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := lazyKey{idx, resource}
	b := s.lazy[k]
	if b == nil {
		b = newBreaker(&s.rules[idx], resource)
		s.lazy[k] = b
	}
	return b
}

// own returns the breakers of the degrade rules of resource: its
// exact-resource rules', then those of the regex rules that match it.
func (s *ruleSet) own(resource string) []*breaker {
	var bs []*breaker
	bs = append(bs, s.exact[resource]...)
	if len(s.patterns) == 0 {
		return bs
	}
	matched := s.set.Match(resource) // every pattern at once, in bounded time
	for _, p := range s.patterns {
		if matched.Has(p.pat) {
			bs = append(bs, s.perResource(p.idx, resource))
		}
	}
	return bs
}

// hasOwn reports whether resource has a degrade rule of its own, exact or
// regex, which switches the default rules off for it.
func (s *ruleSet) hasOwn(resource string) bool {
	if len(s.exact[resource]) > 0 {
		return true
	}
	return s.set.Any(resource)
}

// BreakerInfo describes one circuit breaker.
type BreakerInfo struct {
	// Resource is the resource the breaker guards.
	Resource string `json:"resource"`
	// Rule is the breaker's rule (for regex and default rules, its
	// Resource is the pattern or "*").
	Rule  Rule  `json:"rule"`
	State State `json:"state"`
	// NextRetryMillis is, for an OPEN breaker, the Unix ms from which it
	// lets a probe through.
	NextRetryMillis int64 `json:"nextRetryMillis"`
}

// Breakers lists the breakers of the rules in force, by resource and then
// rule order. Breakers of regex and default rules appear once their
// resource has been called under the current rules.
func Breakers() []BreakerInfo {
	s := current.Load()
	if s == nil {
		return nil
	}
	type item struct {
		idx int
		b   *breaker
	}
	var items []item
	for i, b := range s.byIndex {
		if b != nil {
			items = append(items, item{i, b})
		}
	}
	s.mu.Lock()
	for k, b := range s.lazy {
		items = append(items, item{k.idx, b})
	}
	s.mu.Unlock()
	sort.Slice(items, func(i, j int) bool {
		if items[i].b.resource != items[j].b.resource {
			return items[i].b.resource < items[j].b.resource
		}
		return items[i].idx < items[j].idx
	})
	out := make([]BreakerInfo, len(items))
	for i, it := range items {
		out[i] = BreakerInfo{Resource: it.b.resource, Rule: s.rules[it.idx], State: it.b.State()}
		if out[i].State == Open {
			out[i].NextRetryMillis = it.b.nextRetry.Load()
		}
	}
	return out
}
