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
	if len(s.patterns) > 0 {
		matched := s.set.Match(r.Name()) // every pattern at once, in bounded time
		for _, c := range s.patterns {
			if matched.Has(c.pat) {
				rules = append(rules, c)
			}
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
// the strict option. A dry-run rule that refuses the call counts a
// would-be block and lets it through to the next rule.
func (k *checker) Check(c *runtime.Call) *runtime.BlockError {
	origin := c.Origin()
	if origin == "" {
		if !strict.Load() {
			return nil
		}
		for _, r := range k.rules {
			if !r.black {
				if b := refuse(c, r, origin); b != nil {
					return b
				}
			}
		}
		return nil
	}
	for _, r := range k.rules {
		if r.contains(origin) == r.black {
			if b := refuse(c, r, origin); b != nil {
				return b
			}
		}
	}
	return nil
}

// refuse blocks c by rule r, or, for a dry-run rule, counts the would-be
// block and returns nil. Authority rules hold nothing, so a call a
// dry-run rule let through has nothing to give back.
func refuse(c *runtime.Call, r *compiled, origin string) *runtime.BlockError {
	if r.rule.DryRun {
		runtime.CountDryRunBlock(c, runtime.BlockAuthority, r.rule)
		return nil
	}
	return c.Block(runtime.BlockAuthority, r.rule, origin)
}

func (*checker) Exit(*runtime.Call) {}

// SkipsExit: an authority check takes nothing to give back.
func (*checker) SkipsExit() bool { return true }

// NamesResource reports how the authority rules in force name resource
// (runtime.ResourceNamer).
func (slot) NamesResource(name string) runtime.Naming {
	s := current.Load()
	if s == nil {
		return runtime.NotNamed
	}
	if s.exact[name] != nil {
		return runtime.NamedExactly
	}
	if s.set.Any(name) {
		return runtime.NamedByPattern
	}
	return runtime.NotNamed
}
