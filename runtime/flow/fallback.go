package flow

import (
	"github.com/sentinelgen/sentinelgen/runtime"
)

// LocalCount is a ClusterChecker's "no answer" that also says which count
// the rule's local fallback checks against (Check returns it, or an error
// wrapping it). Package runtime/cluster returns it for a thresholdType 1
// (global) rule while Redis does not answer: Count is this instance's
// share of the rule's count (its part of the fleet's demand), so that the
// fleet together stays near the global limit rather than admitting count
// on every instance (Java's fallbackToLocalWhenFail checks the whole
// count).
//
// Returned with admitted true, it means the cluster admitted the call but
// the local check against Count must pass too (a checker that cannot ask
// first; see LocalFirst).
type LocalCount struct {
	Count float64
	Err   error // why the cluster did not answer
}

func (e *LocalCount) Error() string {
	if e.Err == nil {
		return "flow: cluster check not answered; checked locally"
	}
	return e.Err.Error()
}

func (e *LocalCount) Unwrap() error { return e.Err }

// shareState is a rule's local check against another count than its own:
// the warm-up and throttling controllers keep the count they were made
// with, so a count of their own needs controllers of its own. It is made
// on the first call that needs it and again when the count changes (the
// fleet's size changed), which starts them cold, as a rule loaded then
// would.
type shareState struct {
	count        float64
	warm         *warmUp
	throttle     *throttle
	warmThrottle *warmUpThrottle
}

func (s *resState) shareFor(rule *Rule, kind ruleKind, count float64) *shareState {
	old := s.share.Load()
	if old != nil && old.count == count {
		return old
	}
	sh := &shareState{count: count}
	switch kind {
	case kindWarmUp:
		sh.warm = newWarmUp(count, rule.WarmUpPeriodSec, s.coldFactor)
	case kindThrottle:
		sh.throttle = newThrottle(count, rule.MaxQueueingTimeMs)
	case kindWarmUpThrottle:
		sh.warmThrottle = newWarmUpThrottle(count, rule.WarmUpPeriodSec, rule.MaxQueueingTimeMs, s.coldFactor)
	}
	// Losing the race to a call with the same count costs one call a
	// fresh controller; the next call uses the one stored.
	s.share.CompareAndSwap(old, sh)
	return sh
}

// passLocalCount is passLocal against count instead of the rule's. Cluster
// rules are never gates (bind), so this is Java's passLocalCheck on the
// selected node.
func (br *boundRule) passLocalCount(c *runtime.Call, acquire int64, count float64) bool {
	if !br.applies(c) {
		return true
	}
	node := br.selectNode(c)
	if node == nil {
		return true
	}
	now := c.NowMillis()
	switch br.kind {
	case kindWarmUp:
		return br.state.shareFor(br.rule, br.kind, count).warm.pass(node, now, acquire)
	case kindThrottle:
		return br.state.shareFor(br.rule, br.kind, count).throttle.pass(c, now, acquire, br.dry)
	case kindWarmUpThrottle:
		return br.state.shareFor(br.rule, br.kind, count).warmThrottle.pass(c, node, now, acquire, br.dry)
	}
	return rejectOnNode(br.grade, count, node, now, acquire)
}
