package paramflow

import (
	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/runtime"
)

func init() { runtime.RegisterSlot("ParamFlowSlot", runtime.OrderParamFlow, slot{}) }

type slot struct{}

// Bind gathers the rules of the resource, exact and regex (matched once
// here, not per call).
func (slot) Bind(r *runtime.Resource) runtime.Checker {
	s := inForce.Load()
	if s == nil {
		return nil
	}
	var k checker
	for _, cr := range s.byResource[r.Name()] {
		if cr.grade != GradeThread && cr.grade != GradeQPS {
			continue // Java's passSingleValueCheck passes every call
		}
		k.rules = append(k.rules, bound{compiledRule: cr, values: cr.state.forResource(r.Name(), false), cluster: boundCluster(cr)})
	}
	var matched ruleutil.Matches
	if len(s.regex) > 0 {
		matched = s.set.Match(r.Name()) // every pattern at once, in bounded time
	}
	for _, cr := range s.regex {
		if cr.grade != GradeThread && cr.grade != GradeQPS {
			continue
		}
		if matched.Has(cr.pat) {
			k.rules = append(k.rules, bound{compiledRule: cr, values: cr.state.forResource(r.Name(), true), cluster: boundCluster(cr)})
		}
	}
	if len(k.rules) == 0 {
		return nil
	}
	for i := range k.rules {
		if k.rules[i].grade == GradeThread {
			k.hasThread = true
		}
	}
	return &k
}

type checker struct {
	rules     []bound
	hasThread bool
}

// NeedsArgs tells wrappers to pass arguments: hot-parameter rules read them.
func (*checker) NeedsArgs() bool { return true }

// argIndex resolves a rule's paramIdx against a call's arguments (Java's
// applyRealParamIdx): negative counts from the end; out of range, the rule
// does not apply.
func argIndex(idx, n int) (int, bool) {
	if idx < 0 {
		idx += n
	}
	return idx, idx >= 0 && idx < n
}

// keyBuf is the stack room for an argument's keys; longer lists spill to
// the heap.
const keyBuf = 4

// Check is Java's ParamFlowSlot.checkFlow: each rule in turn checks the
// value of its argument, or every element of a slice or array argument.
// A dry-run rule that refuses the call counts a would-be block and lets
// it through, holding none of the call's values (wouldBlock).
func (k *checker) Check(c *runtime.Call) *runtime.BlockError {
	args := c.Args()
	if len(args) == 0 {
		return nil
	}
	var buf [keyBuf]key
rules:
	for i := range k.rules {
		b := &k.rules[i]
		idx, ok := argIndex(b.idx, len(args))
		if !ok || (!b.local && b.cluster == nil) {
			continue
		}
		keys, ok := appendKeys(buf[:0], args[idx])
		if !ok {
			warnTooMany(b.rule.Resource, b.idx, args[idx])
			if b.dry {
				b.wouldBlock(c)
				continue
			}
			k.release(c, i)
			return c.Block(runtime.BlockParamFlow, b.rule, args[idx])
		}
		var counts []int64 // the cluster's counts for the local check, when it says
		if b.cluster != nil {
			var verdict clusterVerdict
			switch verdict, counts = b.passCluster(c, keys); verdict {
			case clusterPass:
				continue
			case clusterBlock:
				if b.dry {
					b.wouldBlock(c)
					continue
				}
				k.release(c, i)
				return c.Block(runtime.BlockParamFlow, b.rule, args[idx])
			}
		}
		var dups repeats
		for j, key := range keys {
			var taken int64
			if b.grade == GradeThread && len(keys) > 1 {
				taken = dups.before(keys, j)
			}
			limit := b.limitFor(key)
			if counts != nil && counts[j] >= 0 {
				limit = counts[j]
			}
			if b.pass(c, key, taken, limit) {
				continue
			}
			if b.grade == GradeThread {
				for _, taken := range keys[:j] {
					b.release(taken)
				}
			}
			if b.dry {
				b.wouldBlock(c)
				continue rules
			}
			k.release(c, i)
			return c.Block(runtime.BlockParamFlow, b.rule, args[idx])
		}
	}
	return nil
}

// wouldBlock records that dry-run rule b refused call c, which it admits.
// A thread-grade rule then holds none of the call's values: it remembers
// the call, so that the call's exit gives back nothing.
func (b *bound) wouldBlock(c *runtime.Call) {
	if b.grade == GradeThread {
		b.state.refused.Add(c)
	}
	runtime.CountDryRunBlock(c, runtime.BlockParamFlow, b.rule)
}

// Exit gives back the thread-grade counts the call took.
func (k *checker) Exit(c *runtime.Call) {
	if k.hasThread {
		k.release(c, len(k.rules))
	}
}

// SkipsExit: without thread-grade rules a call takes nothing to give back.
func (k *checker) SkipsExit() bool { return !k.hasThread }

// release gives back the thread-grade counts taken by the first n rules.
func (k *checker) release(c *runtime.Call, n int) {
	if !k.hasThread {
		return
	}
	args := c.Args()
	var buf [keyBuf]key
	for i := range k.rules[:n] {
		b := &k.rules[i]
		idx, ok := argIndex(b.idx, len(args))
		if b.grade != GradeThread || !ok || !b.local {
			continue
		}
		if b.dry && b.state.refused.Take(c) {
			continue // refused: it holds nothing
		}
		keys, _ := appendKeys(buf[:0], args[idx]) // none when refused for its length
		for _, key := range keys {
			b.release(key)
		}
	}
}

// NamesResource reports how the hot-parameter rules in force name
// resource (runtime.ResourceNamer).
func (slot) NamesResource(name string) runtime.Naming {
	s := inForce.Load()
	if s == nil {
		return runtime.NotNamed
	}
	if len(s.byResource[name]) > 0 {
		return runtime.NamedExactly
	}
	if s.set.Any(name) {
		return runtime.NamedByPattern
	}
	return runtime.NotNamed
}
