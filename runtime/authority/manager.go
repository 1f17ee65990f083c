package authority

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// ruleSet is one loaded rule set, immutable once published.
type ruleSet struct {
	rules    []Rule               // as loaded; compiled rules point into it
	listed   []Rule               // the rules in force, for Rules: redundant ones left out
	exact    map[string]*compiled // by resource
	patterns []*compiled          // regex rules
	set      *ruleutil.PatternSet // their patterns, matched together
}

// compiled is a rule with its origins parsed once, at load.
type compiled struct {
	rule    *Rule
	pat     ruleutil.Pattern // regex rules only: the pattern's place in the set
	black   bool
	origins []string            // trimmed, sorted, distinct
	set     map[string]struct{} // the same, for long lists
}

// linearMax is the longest origin list searched by scanning; longer lists
// use a map.
const linearMax = 8

func (c *compiled) contains(origin string) bool {
	if c.set != nil {
		_, ok := c.set[origin]
		return ok
	}
	for _, o := range c.origins {
		if o == origin {
			return true
		}
	}
	return false
}

var (
	loadMu   sync.Mutex
	current  atomic.Pointer[ruleSet]
	strict   atomic.Bool
	property = runtime.NewProperty(LoadRules)
)

// SetStrict sets whether a call without an origin fails white lists. Off by
// default: as in Java, a call whose context names no origin passes every
// authority rule. On, it is refused by every white-list rule of its resource
// (black lists still let it through). It takes effect on the next call.
func SetStrict(on bool) { strict.Store(on) }

// Strict reports whether calls without an origin fail white lists.
func Strict() bool { return strict.Load() }

// LoadRules replaces the authority rules in force with rules, after checking
// every one of them (see ValidateRules). An invalid set is refused whole and
// the rules in force stay. Nil or empty clears.
func LoadRules(rules []Rule) error {
	loadMu.Lock()
	defer loadMu.Unlock()
	s, err := compile(rules)
	if err != nil {
		return err
	}
	s.keepIdentities(current.Load())
	current.Store(s)
	runtime.RulesChanged()
	return nil
}

// ValidateRules checks rules as LoadRules does and loads nothing: Java's
// AuthorityRuleManager.isValidRule (resource and limitApp not blank, a
// valid regex), plus a known strategy, at least one origin, and one rule per
// resource. The error is a runtime.RuleErrors naming each bad rule's index,
// field and reason.
func ValidateRules(rules []Rule) error {
	_, err := compile(rules)
	return err
}

// Rules returns a copy of the rules in force: a later rule for a resource
// that has one is not (Java ignores it, and its getRules command does not
// list it either).
func Rules() []Rule {
	s := current.Load()
	if s == nil || len(s.listed) == 0 {
		return nil
	}
	return append([]Rule(nil), s.listed...)
}

// Property is the authority rules' property, which data sources update
// (Java's AuthorityRuleManager.register2Property).
func Property() *runtime.Property[[]Rule] { return property }

// keepIdentities points each compiled rule equal to one of old at old's
// rule, so that BlockError.Rule and the block log's key survive a reload
// of an unchanged rule.
func (s *ruleSet) keepIdentities(old *ruleSet) {
	if old == nil {
		return
	}
	prev := map[Rule]*Rule{}
	for _, c := range old.exact {
		prev[*c.rule] = c.rule
	}
	for _, c := range old.patterns {
		prev[*c.rule] = c.rule
	}
	for _, c := range s.exact {
		if p := prev[*c.rule]; p != nil {
			c.rule = p
		}
	}
	for _, c := range s.patterns {
		if p := prev[*c.rule]; p != nil {
			c.rule = p
		}
	}
}

func compile(rules []Rule) (*ruleSet, error) {
	s := &ruleSet{rules: append([]Rule(nil), rules...), exact: map[string]*compiled{}}
	first := map[string]int{} // by resource string, regex or not, as Java keys its rules
	var errs runtime.RuleErrors
	compiler := &ruleutil.Regexes{} // bounds the set's patterns in all
	for i := range s.rules {
		r := &s.rules[i]
		bad := func(field, format string, args ...any) {
			errs = append(errs, &runtime.RuleError{Index: i, Resource: r.Resource, Field: field, Reason: fmt.Sprintf(format, args...)})
		}
		c := &compiled{rule: r, black: r.Strategy == Black}
		ok := true
		if strings.TrimSpace(r.Resource) == "" {
			bad("resource", "is required")
			ok = false
		} else if _, dup := first[r.Resource]; dup {
			// Java keeps the first rule of a resource string, a pattern's
			// and a name's alike, and ignores the rest ("redundant
			// rule"); LintRules warns.
			ok = false
		} else {
			first[r.Resource] = i
			s.listed = append(s.listed, *r)
			if r.Regex {
				if err := compiler.Compile(r.Resource); err != nil {
					bad("resource", "%s", ruleutil.RegexReason(err))
					ok = false
				}
			}
		}
		if strings.TrimSpace(r.LimitApp) == "" {
			bad("limitApp", "is required: the comma-separated origins the rule lists")
			ok = false
		} else {
			// ",," names no origin: Java loads it; a white list then
			// refuses every caller with an origin (LintRules warns).
			c.origins = parseOrigins(r.LimitApp)
		}
		if r.Strategy < 0 {
			bad("strategy", "%d is negative; want 0 (white list) or 1 (black list)", int(r.Strategy))
			ok = false
		}
		if !ok || r.Strategy > Black {
			continue // an unknown strategy passes every call, as Java's passCheck
		}
		if len(c.origins) > linearMax {
			c.set = make(map[string]struct{}, len(c.origins))
			for _, o := range c.origins {
				c.set[o] = struct{}{}
			}
		}
		if r.Regex {
			s.patterns = append(s.patterns, c)
		} else {
			s.exact[r.Resource] = c
		}
	}
	if len(errs) == 0 {
		if i, reason, ok := compiler.BuildFor(len(s.rules), func(i int) (string, bool) { return s.rules[i].Resource, s.rules[i].Regex }); !ok {
			errs = append(errs, &runtime.RuleError{Index: i, Resource: s.rules[i].Resource, Field: "resource", Reason: reason})
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	s.set = compiler.Set()
	for _, c := range s.patterns {
		c.pat = compiler.Pattern(c.rule.Resource)
	}
	return s, nil
}

// parseOrigins splits limitApp on commas, trims each entry, and drops
// empty and repeated entries.
func parseOrigins(limitApp string) []string {
	var out []string
	for o := range strings.SplitSeq(limitApp, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// LintRules reports the rules that Java's AuthorityRuleManager accepts
// but that probably do not do what their author meant, each with what
// Java (and this runtime) does with it: a later rule for a resource that
// has one (ignored, "redundant rule"), an unknown strategy (the rule
// passes every call), a limitApp that names no origin (a white list
// refuses every caller with an origin, a black list none). The result has
// the shape of a refusal; nothing in it refuses.
func LintRules(rules []Rule) runtime.RuleErrors {
	var out runtime.RuleErrors
	first := map[string]int{}
	for i := range rules {
		r := &rules[i]
		warn := func(field, format string, args ...any) {
			out = append(out, &runtime.RuleError{Index: i, Resource: r.Resource, Field: field, Reason: fmt.Sprintf(format, args...)})
		}
		if strings.TrimSpace(r.Resource) == "" || strings.TrimSpace(r.LimitApp) == "" || r.Strategy < 0 {
			continue // refused; Validate says why
		}
		if j, dup := first[r.Resource]; dup {
			warn("resource", "%q already has an authority rule (rule %d); Java keeps that one and ignores this one (a resource string takes one, regex or not)", r.Resource, j)
			continue
		}
		first[r.Resource] = i
		if r.Strategy > Black {
			warn("strategy", "%d is not 0 (white list) or 1 (black list); Java loads the rule and it passes every call", int(r.Strategy))
		}
		if len(parseOrigins(r.LimitApp)) == 0 {
			warn("limitApp", "%q names no origin; Java loads it: as a white list it refuses every caller with an origin, as a black list none", r.LimitApp)
		}
	}
	return out
}
