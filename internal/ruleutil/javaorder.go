package ruleutil

import "github.com/sentinelgen/sentinelgen/internal/javahash"

// AbstractRuleHash is Sentinel's AbstractRule.hashCode, where every rule's
// hashCode starts: the resource's, then limitApp's unless it is blank or
// "default" (which are one value to AbstractRule.equals), then 1 for a
// regex rule.
func AbstractRuleHash(resource, limitApp string, regex bool) int32 {
	h := javahash.String(resource)
	if limitApp != "" && limitApp != LimitAppDefault {
		h = 31*h + javahash.String(limitApp)
	}
	return 31*h + javahash.Flag(regex)
}

// JavaSets groups n rules by resource the way Sentinel's
// FlowRuleUtil.buildFlowRuleMap and ParamFlowRuleUtil.buildParamRuleMap
// do before they check them: one java.util.HashSet per resource string
// (regex patterns included), filled in load order, a rule equal to one
// already in it dropped (the first stays): rules i and j are equal when
// key(i) == key(j), which must stand for Java's equals (and so never hold
// for rules of different resources or hash codes). It returns, for each
// resource in the order it first appears, the indexes of its rules in the
// set's iteration order, which is the order Java copies them into the list
// it checks (before any sort).
func JavaSets[K comparable](n int, resource func(i int) string, hashCode func(i int) int32, key func(i int) K) [][]int {
	sets := make(map[string]*javahash.Set[int])
	present := make(map[K]struct{}, n)
	var resources []string
	for i := range n {
		k := key(i)
		if _, ok := present[k]; ok {
			continue
		}
		present[k] = struct{}{}
		res := resource(i)
		s := sets[res]
		if s == nil {
			s = javahash.NewSet[int]()
			sets[res] = s
			resources = append(resources, res)
		}
		s.Add(i, hashCode(i))
	}
	out := make([][]int, len(resources))
	for k, res := range resources {
		out[k] = sets[res].Elements()
	}
	return out
}
