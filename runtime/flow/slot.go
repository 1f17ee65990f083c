package flow

import (
	"time"
	"unsafe"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

func init() {
	runtime.RegisterSlot("FlowSlot", runtime.OrderFlow, slot{})
}

// slot is Java's FlowSlot. It binds to the resources that have flow rules
// (exact or regex), once per resource and rule change.
type slot struct{}

func (slot) Bind(r *runtime.Resource) runtime.Checker {
	rs := current.Load()
	if rs == nil {
		return nil
	}
	applying := rulesFor(rs, r.Name())
	if len(applying) == 0 {
		return nil
	}

	// Java's isOtherOrigin compares the caller's origin with the limitApp
	// of every rule of the resource.
	named := make([]string, 0, len(applying))
	for _, cr := range applying {
		named = append(named, cr.rule.LimitApp)
	}
	ck := newChecker()
	ck.rules = ck.inline[:0]
	for _, cr := range applying {
		br, ok := bind(cr, r, named)
		if !ok {
			continue
		}
		ck.rules = append(ck.rules, br)
		if br.kind == kindGate {
			ck.hasGates = true
			if br.grade == GradeThread {
				ck.hasThreadGates = true
			}
			if br.dry {
				ck.hasDryGates = true
			}
		}
	}
	if len(ck.rules) == 0 {
		return nil
	}
	if s := solo(ck); s != nil {
		return s
	}
	return ck
}

// rulesFor lists the rules that apply to the resource named name, in the
// order Java's RuleManager.getRules returns them: the resource's own rules,
// then the regex rules that match it, pattern by pattern. install has put
// each list in Java's order (order.go).
func rulesFor(rs *ruleSet, name string) []*compiled {
	own := rs.exact[name]
	applying := make([]*compiled, 0, len(own))
	applying = append(applying, own...)
	if len(rs.regex) == 0 {
		return applying
	}
	matched := rs.set.Match(name) // every pattern at once, in bounded time
	for i := 0; i < len(rs.regex); {
		// Rules of one pattern are adjacent (install groups them).
		j := i + 1
		for j < len(rs.regex) && rs.regex[j].rule.Resource == rs.regex[i].rule.Resource {
			j++
		}
		if matched.Has(rs.regex[i].pat) {
			applying = append(applying, rs.regex[i:j]...)
		}
		i = j
	}
	return applying
}

// checker is the flow slot bound to one resource: its rules in Java's
// order.
type checker struct {
	rules          []boundRule
	inline         [1]boundRule // rules, when there is one: with the checker
	hasGates       bool
	hasThreadGates bool
	hasDryGates    bool // every exit must forget the calls they refused
}

// newChecker allocates a checker padded to a multiple of 64 bytes, a size
// class whose objects start on a cache line: what a call reads, the slice
// and the first rule's fields up to its kind and app, is one line.
func newChecker() *checker {
	return &new(struct {
		ck checker
		_  [(64 - unsafe.Sizeof(checker{})%64) % 64]byte
	}).ck
}

// Check is Java's FlowRuleChecker.checkFlow: the first rule that refuses
// the call blocks it. Admission a gate granted to an earlier rule is given
// back, since the call does not pass.
//
// A prioritized call that a QPS Reject rule refuses may borrow from a
// window to come (occupy.go). The remaining rules still check it; when
// they all pass, it waits for the borrowed window and passes without the
// slots after this one (Java's PriorityWaitException).
func (ck *checker) Check(c *runtime.Call) *runtime.BlockError {
	acquire := c.BatchCount()
	for i := range ck.rules {
		br := &ck.rules[i]
		var ok bool
		if br.direct { // pass's common case, inlined
			ok = br.passes.TryAdd(c.StartMillis(), stat.Pass, acquire, br.limit)
		} else {
			ok = br.pass(c, acquire)
		}
		if !ok {
			if ck.rules[i].dry {
				ck.rules[i].wouldBlock(c)
				continue
			}
			return ck.refused(c, i, acquire)
		}
	}
	return nil
}

// refused blocks the call rule i refused, unless the call is prioritized
// and the rule lends it a pass: then the remaining rules check it, and
// when they pass, it waits for the window it borrowed from and passes.
func (ck *checker) refused(c *runtime.Call, i int, acquire int64) *runtime.BlockError {
	var bw borrowing
	if c.Prioritized() && ck.rules[i].borrow(c, acquire, &bw) {
		bw.rule = i
		for j := i + 1; j < len(ck.rules); j++ {
			if !ck.rules[j].pass(c, acquire) {
				if ck.rules[j].dry {
					ck.rules[j].wouldBlock(c)
					continue
				}
				ck.giveBack(c, j, acquire, &bw)
				return ck.rules[j].refusal(c)
			}
		}
		if c.Sleep(time.Duration(bw.at-c.NowMillis())*time.Millisecond) == nil {
			return c.PassNow()
		}
		// The caller gave up waiting: the call is refused.
		i, j := bw.rule, len(ck.rules)
		ck.giveBack(c, j, acquire, &bw)
		return ck.rules[i].refusal(c)
	}
	ck.giveBack(c, i, acquire, &bw)
	return ck.rules[i].refusal(c)
}

// giveBack releases what the first n rules granted a call that is refused
// after all, the borrowed pass included. A dry-run gate that refused the
// call granted nothing (release forgets the call).
func (ck *checker) giveBack(c *runtime.Call, n int, acquire int64, bw *borrowing) {
	for j := range n {
		if bw.active() && j == bw.rule {
			bw.undo(acquire)
			continue
		}
		ck.rules[j].release(c, acquire, true)
	}
}

// Exit releases thread tokens, and gives back the passes of a call that a
// later slot refused.
func (ck *checker) Exit(c *runtime.Call) {
	if !ck.hasGates {
		return
	}
	refused := c.BlockError() != nil
	if !refused && !ck.hasThreadGates && !ck.hasDryGates {
		return
	}
	acquire := c.BatchCount()
	for i := range ck.rules {
		ck.rules[i].release(c, acquire, refused)
	}
}

// SkipsExit: an admitted call gives back only thread tokens, and what
// dry-run gates must forget.
func (ck *checker) SkipsExit() bool {
	return !ck.hasGates || (!ck.hasThreadGates && !ck.hasDryGates)
}

// NamesResource reports how the flow rules in force name resource
// (runtime.ResourceNamer): exactly, as a rule's resource or a Relate
// rule's refResource (whose statistics the rule reads), or by pattern.
func (slot) NamesResource(name string) runtime.Naming {
	rs := current.Load()
	if rs == nil {
		return runtime.NotNamed
	}
	if len(rs.exact[name]) > 0 || rs.refs[name] {
		return runtime.NamedExactly
	}
	if rs.set.Any(name) {
		return runtime.NamedByPattern
	}
	return runtime.NotNamed
}
