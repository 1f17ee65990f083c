package paramflow

import (
	"math"
	"strconv"

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
	keys := make([]javaKey, len(rules))
	var buf []byte
	for i := range rules {
		hashes[i] = javaHashCode(&rules[i])
		keys[i], buf = javaKeyOf(&rules[i], buf[:0])
	}
	return ruleutil.JavaSets(len(rules),
		func(i int) string { return rules[i].Resource },
		func(i int) int32 { return hashes[i] },
		func(i int) javaKey { return keys[i] })
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

// javaKey stands for ParamFlowRule.equals: two rules are equal when their
// keys are, on every field Java has (Java's defaults in place of Go's
// zeros, counts compared as Double.compare does, items in order). DryRun is
// left out, so that of two rules that differ only in it the first stays.
type javaKey struct {
	resource, limitApp string
	regex              bool
	grade              Grade
	countBits          uint64
	behavior           ControlBehavior
	maxQueue, burst    int64
	durationInSec      int64
	clusterMode        bool
	hasIdx             bool
	idx                int
	items              string // each item's fields, quoted
	hasCluster         bool
	cluster            ClusterConfig
}

// javaKeyOf returns r's key, writing its items' text in buf (returned for
// reuse).
func javaKeyOf(r *Rule, buf []byte) (javaKey, []byte) {
	k := javaKey{
		resource: r.Resource, limitApp: r.LimitApp, regex: r.Regex, grade: r.Grade,
		countBits: math.Float64bits(r.Count), behavior: r.ControlBehavior,
		maxQueue: r.MaxQueueingTimeMs, burst: r.BurstCount, durationInSec: max(r.DurationInSec, 1),
		clusterMode: r.ClusterMode, hasIdx: r.ParamIdx != nil,
	}
	if r.ParamIdx != nil {
		k.idx = *r.ParamIdx
	}
	for _, it := range r.ParamFlowItemList {
		buf = strconv.AppendQuote(buf, it.Object)
		buf = strconv.AppendBool(buf, it.noObject)
		buf = strconv.AppendInt(buf, it.Count, 10)
		buf = strconv.AppendBool(buf, it.noCount)
		buf = strconv.AppendQuote(buf, it.ClassType)
	}
	k.items = string(buf)
	if cc := r.ClusterConfig; cc != nil {
		k.hasCluster = true
		sampleCount, windowIntervalMs := clusterWindow(cc)
		k.cluster = ClusterConfig{FlowID: cc.FlowID, ThresholdType: cc.ThresholdType,
			FallbackToLocalWhenFail: cc.FallbackToLocalWhenFail, SampleCount: sampleCount, WindowIntervalMs: windowIntervalMs}
	}
	return k, buf
}
