package authority

import "github.com/sentinelgen/sentinelgen/runtime"

func init() {
	runtime.RegisterSlot("AuthoritySlot", runtime.OrderAuthority, slot{})
}

// slot is Java's AuthoritySlot.
type slot struct{}

func (slot) Bind(r *runtime.Resource) runtime.Checker {
	s := current.Load()
	if s == nil {
		return nil
	}
	var rules []*compiled
	if c := s.exact[r.Name()]; c != nil {
		rules = append(rules, c)
	}
	for _, c := range s.patterns {
		if c.re.MatchString(r.Name()) {
			rules = append(rules, c)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	return &checker{rules: rules}
}

// checker applies a resource's rules: its own, then the regex rules that
// match it. Every rule must let the call through.
type checker struct {
	rules []*compiled
}

// Check is Java's AuthorityRuleChecker.passCheck, with origins trimmed and
// the strict option.
func (k *checker) Check(c *runtime.Call) *runtime.BlockError {
	origin := c.Origin()
	if origin == "" {
		if !strict.Load() {
			return nil
		}
		for _, r := range k.rules {
			if !r.black {
				return c.Block(runtime.BlockAuthority, r.rule, origin)
			}
		}
		return nil
	}
	for _, r := range k.rules {
		if r.contains(origin) == r.black {
			return c.Block(runtime.BlockAuthority, r.rule, origin)
		}
	}
	return nil
}

func (*checker) Exit(*runtime.Call) {}

// NamesResource reports whether an authority rule in force names resource,
// exactly or by pattern (runtime.ResourceNamer).
func (slot) NamesResource(name string) bool {
	s := current.Load()
	if s == nil {
		return false
	}
	if s.exact[name] != nil {
		return true
	}
	for _, c := range s.patterns {
		if c.re.MatchString(name) {
			return true
		}
	}
	return false
}
