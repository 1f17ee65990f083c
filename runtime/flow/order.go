package flow

import (
	"math"
	"slices"

	"github.com/sentinelgen/sentinelgen/internal/javahash"
	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
)

// javaOrder lists rules (as in force) in the order Java Sentinel 1.8's
// FlowRuleUtil.buildFlowRuleMap leaves them: grouped by resource string in
// a HashSet each (equal rules dropped, the first kept), copied out in the
// set's iteration order, which follows FlowRule.hashCode, and sorted stably
// by FlowRuleComparator. It returns each resource's rule indexes, resources
// in the order they first appear.
func javaOrder(rules []Rule) [][]int {
	hashes := make([]int32, len(rules))
	for i := range rules {
		hashes[i] = javaHashCode(&rules[i])
	}
	groups := ruleutil.JavaSets(len(rules),
		func(i int) string { return rules[i].Resource },
		func(i int) int32 { return hashes[i] },
		func(i int) javaKey { return javaKeyOf(&rules[i]) })
	for _, g := range groups {
		slices.SortStableFunc(g, func(a, b int) int { return comparatorRank(&rules[a]) - comparatorRank(&rules[b]) })
	}
	return groups
}

// comparatorRank is FlowRuleComparator as a sort key: local rules before
// cluster rules, and among each, rules of a specific limitApp ("other"
// included) before "default" ones. The comparator says 0 for everything
// else, so two specific origins, or "other" and an origin, keep the set's
// order.
func comparatorRank(r *Rule) int {
	n := 0
	if r.LimitApp == LimitAppDefault {
		n = 1
	}
	if r.ClusterMode {
		n += 2
	}
	return n
}

// javaHashCode is FlowRule.hashCode of r as in force (blank limitApp
// already "default", Java's defaults in place of Go's zeros). Java holds
// the integer fields in ints: a Go value beyond one hashes by its low 32
// bits, as Java's (int) cast keeps them.
func javaHashCode(r *Rule) int32 {
	h := ruleutil.AbstractRuleHash(r.Resource, r.LimitApp, r.Regex)
	h = 31*h + javahash.Int(int(r.Grade))
	h = 31*h + javahash.Double(r.Count)
	h = 31*h + javahash.Int(int(r.Strategy))
	h = 31*h + javahash.String(r.RefResource) // null and "" both hash to 0
	h = 31*h + javahash.Int(int(r.ControlBehavior))
	h = 31*h + javahash.Int(r.WarmUpPeriodSec)
	h = 31*h + javahash.Int(r.MaxQueueingTimeMs)
	h = 31*h + javahash.Flag(r.ClusterMode)
	var cc int32
	if r.ClusterConfig != nil {
		cc = r.ClusterConfig.javaHashCode()
	}
	return 31*h + cc
}

// javaHashCode is ClusterFlowConfig.hashCode (its two long fields added in
// long arithmetic and cast back to int, which keeps the same low 32 bits
// as int arithmetic).
func (c *ClusterConfig) javaHashCode() int32 {
	h := javahash.Long(c.FlowID)
	h = 31*h + javahash.Int(c.ThresholdType)
	h = 31*h + javahash.Flag(c.FallbackToLocalWhenFail)
	h = 31*h + javahash.Int(c.Strategy)
	h = 31*h + javahash.Int(c.SampleCount)
	h = 31*h + javahash.Int(c.WindowIntervalMs)
	h = 31*h + javahash.Int(c.ResourceTimeout)
	h = 31*h + javahash.Int(c.ClientOfflineTime)
	h = 31*h + javahash.Int(c.ResourceTimeoutStrategy)
	return 31*h + javahash.Int(c.AcquireRefuseStrategy)
}

// javaKey stands for FlowRule.equals: two rules as in force are equal when
// their keys are, on every field Java has, counts compared as
// Double.compare does (0.0 and -0.0 differ). DryRun, which Java does not
// have, is left out: of two rules that differ only in it, the first stays.
type javaKey struct {
	ruleKey
	countBits uint64
}

func javaKeyOf(r *Rule) javaKey {
	return javaKey{keyOf(r, 0), math.Float64bits(r.Count)}
}
