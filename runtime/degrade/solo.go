package degrade

import "github.com/sentinelgen/sentinelgen/runtime"

// soloChecker is the checker of a resource with one breaker that is not,
// and never was, a dry-run one: the common case. It is the breaker
// itself, so a call reads the breaker's first line and no checker's: one
// cache line fewer per call, which counts when thousands of resources
// take turns. It decides what checker decides for one such breaker.
//
// A rebind after a reload that makes the rule a dry-run one (or adds a
// breaker) builds a checker instead; a call admitted before it exits on
// the new one, as every degrade checker exits on the current rules.
type soloChecker breaker

func (s *soloChecker) Check(c *runtime.Call) *runtime.BlockError {
	b := (*breaker)(s)
	if State(b.state.Load()) == Closed {
		return nil // tryPass's common case, inlined
	}
	if !b.tryPass(c, c.NowMillis()) {
		return b.refusal()
	}
	return nil
}

// ExitsOnCurrentRules: see checker.
func (s *soloChecker) ExitsOnCurrentRules() {}

func (s *soloChecker) Exit(c *runtime.Call) {
	b := (*breaker)(s)
	now := c.ExitMillis()
	if c.BlockError() != nil {
		b.abandon(c, now) // no sample; a probe goes back to OPEN
		return
	}
	b.complete(c, now)
}
