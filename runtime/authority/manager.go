package authority

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// ruleSet is one loaded rule set, immutable once published.
type ruleSet struct {
	rules    []Rule               // as loaded, for Rules
	exact    map[string]*compiled // by resource
	patterns []*compiled          // regex rules
}

// compiled is a rule with its origins parsed once, at load.
type compiled struct {
	rule    *Rule
	re      *regexp.Regexp // regex rules only
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
	s, err := compile(rules)
	if err != nil {
		return err
	}
	loadMu.Lock()
	defer loadMu.Unlock()
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

// Rules returns a copy of the rules in force.
func Rules() []Rule {
	s := current.Load()
	if s == nil || len(s.rules) == 0 {
		return nil
	}
	return append([]Rule(nil), s.rules...)
}

// Property is the authority rules' property, which data sources update
// (Java's AuthorityRuleManager.register2Property).
func Property() *runtime.Property[[]Rule] { return property }

func compile(rules []Rule) (*ruleSet, error) {
	s := &ruleSet{rules: append([]Rule(nil), rules...), exact: map[string]*compiled{}}
	type key struct {
		resource string
		regex    bool
	}
	first := map[key]int{}
	var errs runtime.RuleErrors
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
		} else if j, dup := first[key{r.Resource, r.Regex}]; dup {
			bad("resource", "%q already has an authority rule (rule %d); a resource takes one", r.Resource, j)
			ok = false
		} else {
			first[key{r.Resource, r.Regex}] = i
			if r.Regex {
				re, err := ruleutil.CompileResourceRegex(r.Resource)
				if err != nil {
					bad("resource", "%q is not a valid regular expression: %v", r.Resource, err)
					ok = false
				}
				c.re = re
			}
		}
		if strings.TrimSpace(r.LimitApp) == "" {
			bad("limitApp", "is required: the comma-separated origins the rule lists")
			ok = false
		} else if c.origins = parseOrigins(r.LimitApp); len(c.origins) == 0 {
			bad("limitApp", "%q names no origin", r.LimitApp)
			ok = false
		}
		if r.Strategy != White && r.Strategy != Black {
			bad("strategy", "%d is not one of 0 (white list), 1 (black list)", int(r.Strategy))
			ok = false
		}
		if !ok {
			continue
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
	if len(errs) > 0 {
		return nil, errs
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
