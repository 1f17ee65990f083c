package paramflow

import (
	"math"

	"github.com/sentinelgen/sentinelgen/internal/javahash"
	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
)

// javaOrder lists rules (limitApp already "default" where blank) in the
// order Java Sentinel 1.8's ParamFlowRuleUtil.buildParamRuleMap leaves
// them: grouped by resource string in a HashSet each (equal rules dropped,
// the first kept) and copied out in the set's iteration order, which
// follows ParamFlowRule.hashCode. Java does not sort them (its code says
// "TODO: Sort the rules"). It returns each resource's rule indexes,
// resources in the order they first appear.
func javaOrder(rules []Rule) [][]int {
	hashes := make([]int32, len(rules))
	for i := range rules {
		hashes[i] = javaHashCode(&rules[i])
	}
	return ruleutil.JavaSets(len(rules),
		func(i int) string { return rules[i].Resource },
		func(i int) int32 { return hashes[i] },
		func(i, j int) bool { return javaEqual(&rules[i], &rules[j]) })
}

// javaHashCode is ParamFlowRule.hashCode of r, Java's defaults in place of
// Go's zeros. Java holds maxQueueingTimeMs and burstCount in ints: a Go
// value beyond one hashes by its low 32 bits, as Java's (int) cast keeps
// them.
func javaHashCode(r *Rule) int32 {
	h := ruleutil.AbstractRuleHash(r.Resource, r.LimitApp, r.Regex)
	h = 31*h + javahash.Int(int(r.Grade))
	var idx int32
	if r.ParamIdx != nil {
		idx = javahash.Int(*r.ParamIdx)
	}
	h = 31*h + idx
	h = 31*h + javahash.Double(r.Count)
	h = 31*h + javahash.Int(int(r.ControlBehavior))
	h = 31*h + javahash.Int(r.MaxQueueingTimeMs)
	h = 31*h + javahash.Int(r.BurstCount)
	h = 31*h + javahash.Long(max(r.DurationInSec, 1))
	h = 31*h + javahash.List(r.ParamFlowItemList, Item.javaHashCode)
	h = 31*h + javahash.Flag(r.ClusterMode)
	var cc int32
	if r.ClusterConfig != nil {
		cc = r.ClusterConfig.javaHashCode()
	}
	return 31*h + cc
}

// javaHashCode is ParamFlowItem.hashCode: object, count and classType, a
// missing one (Java's null) counting 0, as an empty string does.
func (it Item) javaHashCode() int32 {
	var h int32
	if !it.noObject {
		h = javahash.String(it.Object)
	}
	var count int32
	if !it.noCount {
		count = javahash.Int(it.Count)
	}
	h = 31*h + count
	return 31*h + javahash.String(it.ClassType)
}

// javaHashCode is ParamFlowClusterConfig.hashCode.
func (c *ClusterConfig) javaHashCode() int32 {
	sampleCount, windowIntervalMs := clusterWindow(c)
	h := javahash.Long(c.FlowID)
	h = 31*h + javahash.Int(c.ThresholdType)
	h = 31*h + javahash.Flag(c.FallbackToLocalWhenFail)
	h = 31*h + javahash.Int(sampleCount)
	return 31*h + javahash.Int(windowIntervalMs)
}

// javaEqual is ParamFlowRule.equals: every field Java has (counts compared
// as Double.compare does, items in order), DryRun left out, so that of two
// rules that differ only in it the first stays.
func javaEqual(a, b *Rule) bool {
	if a.Resource != b.Resource || a.Regex != b.Regex || a.LimitApp != b.LimitApp || a.Grade != b.Grade ||
		math.Float64bits(a.Count) != math.Float64bits(b.Count) || a.ControlBehavior != b.ControlBehavior ||
		a.MaxQueueingTimeMs != b.MaxQueueingTimeMs || a.BurstCount != b.BurstCount ||
		max(a.DurationInSec, 1) != max(b.DurationInSec, 1) || a.ClusterMode != b.ClusterMode ||
		(a.ParamIdx == nil) != (b.ParamIdx == nil) || (a.ParamIdx != nil && *a.ParamIdx != *b.ParamIdx) ||
		len(a.ParamFlowItemList) != len(b.ParamFlowItemList) || (a.ClusterConfig == nil) != (b.ClusterConfig == nil) {
		return false
	}
	for i, it := range a.ParamFlowItemList {
		o := b.ParamFlowItemList[i]
		if it.Object != o.Object || it.noObject != o.noObject || it.Count != o.Count || it.noCount != o.noCount || it.ClassType != o.ClassType {
			return false
		}
	}
	if ca, cb := a.ClusterConfig, b.ClusterConfig; ca != nil {
		sa, wa := clusterWindow(ca)
		sb, wb := clusterWindow(cb)
		return ca.FlowID == cb.FlowID && ca.ThresholdType == cb.ThresholdType &&
			ca.FallbackToLocalWhenFail == cb.FallbackToLocalWhenFail && sa == sb && wa == wb
	}
	return true
}
