package degrade

import "github.com/sentinelgen/sentinelgen/runtime"

func init() {
	runtime.RegisterSlot("DefaultCircuitBreakerSlot", runtime.OrderDefaultCircuitBreaker, defaultSlot{})
	runtime.RegisterSlot("DegradeSlot", runtime.OrderDegrade, degradeSlot{})
}

// degradeSlot is Java's DegradeSlot: the breakers of a resource's own
// rules.
type degradeSlot struct{}

func (degradeSlot) Bind(r *runtime.Resource) runtime.Checker {
	s := current.Load()
	if s == nil {
		return nil
	}
	return newChecker(s.own(r.Name()))
}

// defaultSlot is Sentinel 2.0's DefaultCircuitBreakerSlot: the breakers of
// the default ("*") rules, for resources without rules of their own.
type defaultSlot struct{}

func (defaultSlot) Bind(r *runtime.Resource) runtime.Checker {
	s := current.Load()
	if s == nil || len(s.defaults) == 0 || s.hasOwn(r.Name()) {
		return nil
	}
	bs := make([]*breaker, len(s.defaults))
	for i, idx := range s.defaults {
		bs[i] = s.perResource(idx, r.Name())
	}
	return newChecker(bs)
}

// checker runs a resource's breakers. Every enforcing breaker must admit
// a call; a dry-run breaker that refuses one counts a would-be block and
// lets it through (dryRun).
//
// A checker is 56 bytes, in the 64-byte size class, whose objects start
// on a cache line: a call reads one line of it.
type checker struct {
	breakers []*breaker
	inline   [2]*breaker // breakers, when they are few: one line with the checker
	// exitDry is set when some breaker has been a dry-run one: exits then
	// ask each breaker whether it refused the call. dry marks, by index,
	// the breakers of dry-run rules; nil when there are none.
	exitDry bool
	dry     *[]bool
}

func newChecker(bs []*breaker) runtime.Checker {
	if len(bs) == 0 {
		return nil
	}
	if b := bs[0]; len(bs) == 1 && !b.rule.Load().DryRun && !b.wasDry.Load() {
		return (*soloChecker)(b)
	}
	k := &checker{}
	k.breakers = append(k.inline[:0], bs...)
	for i, b := range bs {
		if b.rule.Load().DryRun {
			if k.dry == nil {
				dry := make([]bool, len(bs))
				k.dry = &dry
			}
			(*k.dry)[i] = true
		}
		if b.wasDry.Load() {
			k.exitDry = true
		}
	}
	return k
}

func (k *checker) Check(c *runtime.Call) *runtime.BlockError {
	now := c.NowMillis()
	for i, b := range k.breakers {
		if State(b.state.Load()) == Closed {
			continue // tryPass's common case, inlined
		}
		if !b.tryPass(c, now) {
			if k.dry != nil && (*k.dry)[i] {
				b.refused.Add(c)
				runtime.CountDryRunBlock(c, runtime.BlockDegrade, b.rule.Load())
				continue
			}
			// Breakers that already admitted c as their probe lose it:
			// the call is blocked here, not by them.
			for _, p := range k.breakers[:i] {
				if k.dry != nil && p.refused.Take(c) {
					continue
				}
				p.abandon(c, now)
			}
			return b.refusal()
		}
	}
	return nil
}

// ExitsOnCurrentRules: as Java's DegradeSlot.exit, a call's completion
// goes to the breakers in force when it exits, so a call that straddles a
// reload is counted by the new breakers (an equal rule keeps its breaker).
func (k *checker) ExitsOnCurrentRules() {}

func (k *checker) Exit(c *runtime.Call) {
	now := c.ExitMillis()
	if c.BlockError() != nil {
		// A later slot blocked the call: it is no sample, and a probe goes
		// back to OPEN.
		for _, b := range k.breakers {
			if k.exitDry && b.refused.Take(c) {
				continue
			}
			b.abandon(c, now)
		}
		return
	}
	for _, b := range k.breakers {
		// A call a dry-run breaker refused is, to that breaker, a call
		// that never ran, as it would be had the breaker enforced.
		if k.exitDry && b.refused.Take(c) {
			continue
		}
		b.complete(c, now)
	}
}

// NamesResource reports how the degrade rules in force name resource
// (runtime.ResourceNamer); default rules ("*") name none.
func (degradeSlot) NamesResource(name string) runtime.Naming {
	s := current.Load()
	switch {
	case s == nil:
		return runtime.NotNamed
	case len(s.exact[name]) > 0:
		return runtime.NamedExactly
	case s.hasOwn(name):
		return runtime.NamedByPattern
	}
	return runtime.NotNamed
}
