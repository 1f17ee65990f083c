package flow

import (
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// ruleKind is how a bound rule decides.
type ruleKind uint8

const (
	kindGate           ruleKind = iota // Direct Reject: atomic admission (gate.go)
	kindNode                           // Relate or Chain Reject: Java's DefaultController on the node
	kindWarmUp                         // WarmUpController
	kindThrottle                       // ThrottlingController
	kindWarmUpThrottle                 // WarmUpRateLimiterController
)

// appKind is how a rule's limitApp selects callers.
type appKind uint8

const (
	appDefault appKind = iota // every caller
	appOrigin                 // one named origin
	appOther                  // origins no other rule of the resource names
)

// boundRule is one rule bound to one resource.
type boundRule struct {
	// What a call checking a QPS gate reads comes first: with the
	// checker's slice header, one cache line.

	// cluster counts a cluster rule across instances (cluster.go); nil
	// for local rules and while no ClusterChecker is set.
	cluster ClusterChecker
	// passes is the gate's window of a QPS gate rule that limits one node
	// ("default" or a named origin): one load from the rule.
	passes *stat.Window
	limit  int64
	kind   ruleKind
	app    appKind
	// dry is a dry-run rule: it admits the calls it refuses (dryrun.go).
	dry bool
	// direct is a local QPS gate on every caller's node (passes set, no
	// cluster, limitApp default): what pass decides is passes.TryAdd
	// alone, which Check calls without the two calls between.
	direct bool

	grade Grade
	// single is state's gate for every call of a gate rule that limits
	// one node.
	single   *gate
	rule     *Rule
	strategy Strategy
	origin   string   // appOrigin: the origin limited
	named    []string // appOther: every limitApp of the resource's rules
	ref      *refResource
	count    float64
	state    *resState
}

// bind prepares cr for resource r. A cluster rule that does not fall back
// to local checking is not bound while no ClusterChecker is set: without
// a token server it passes every call (Java's fallbackToLocalOrPass),
// though its limitApp still counts as named for "other".
func bind(cr *compiled, r *runtime.Resource, named []string) (boundRule, bool) {
	rule := cr.rule
	cluster := boundCluster(rule)
	if cluster == nil && rule.ClusterMode && (rule.ClusterConfig == nil || !rule.ClusterConfig.FallbackToLocalWhenFail) {
		return boundRule{}, false
	}
	br := boundRule{
		rule:     rule,
		grade:    rule.Grade,
		strategy: rule.Strategy,
		count:    rule.Count,
		limit:    cr.limit,
		cluster:  cluster,
		dry:      rule.DryRun,
	}
	switch rule.LimitApp {
	case LimitAppDefault:
		br.app = appDefault
	case LimitAppOther:
		br.app = appOther
		br.named = named
	default:
		br.app = appOrigin
		br.origin = rule.LimitApp
		// The rule names this origin: it keeps a node of its own however
		// many other origins call, so a flood of origins cannot leave the
		// rule without a node to check (which would pass every call).
		r.ClusterNode().ReserveOrigin(br.origin)
	}
	switch {
	// An unknown behavior is Java's DefaultController (generateRater's
	// default), as Reject.
	case rule.Grade == GradeThread || rule.ControlBehavior == Reject || rule.ControlBehavior > WarmUpThrottling:
		br.kind = kindNode
		// A cluster rule's local check is Java's passLocalCheck on the
		// node, with or without a ClusterChecker: a gate's reservation
		// could not be told apart, at release, from a pass the cluster
		// granted, and the rule's state must not depend on whether a
		// checker was set when it was first bound.
		if rule.Strategy == Direct && !rule.ClusterMode {
			br.kind = kindGate
		}
	case rule.ControlBehavior == WarmUp:
		br.kind = kindWarmUp
	case rule.ControlBehavior == Throttling:
		br.kind = kindThrottle
	case rule.ControlBehavior == WarmUpThrottling:
		br.kind = kindWarmUpThrottle
	}
	if rule.Strategy == Relate {
		br.ref = &refResource{name: rule.RefResource}
	}
	br.state = cr.states.get(r.Name(), func() *resState { return newState(cr, &br, r) })
	if br.state.gates != nil {
		if br.single = br.state.gates.single; br.single != nil {
			br.passes = br.single.passes
		}
	}
	br.direct = br.kind == kindGate && br.passes != nil && br.cluster == nil && br.app == appDefault
	return br, true
}

func newState(cr *compiled, br *boundRule, r *runtime.Resource) *resState {
	rule, cf := cr.rule, cr.coldFactor
	s := &resState{coldFactor: cf}
	switch br.kind {
	case kindGate:
		s.gates = &gates{grade: rule.Grade}
		if br.app != appOther {
			var seed *stat.Node
			if cn := r.ClusterNode(); cn != nil {
				if br.app == appDefault {
					seed = cn.Node
				} else {
					seed = cn.OriginNode(br.origin)
				}
			}
			s.gates.single = newGate(rule.Grade, seed, runtime.NowMillis(), cr.limit)
		}
	case kindWarmUp:
		s.warm = newWarmUp(rule.Count, rule.WarmUpPeriodSec, cf)
	case kindThrottle:
		s.throttle = newThrottle(rule.Count, rule.MaxQueueingTimeMs)
	case kindWarmUpThrottle:
		s.warmThrottle = newWarmUpThrottle(rule.Count, rule.WarmUpPeriodSec, rule.MaxQueueingTimeMs, cf)
	}
	return s
}

// refusal is the BlockError of every call the rule refuses on c's
// resource: built at the first refusal and kept in the rule's state on
// the resource, so that a refusal allocates no error, and a resource never
// refused holds none. A reload that keeps the state but changes the rule
// (its dry-run flag) builds it anew.
func (br *boundRule) refusal(c *runtime.Call) *runtime.BlockError {
	if b := br.state.blocked.Load(); b != nil && b.Rule() == runtime.Rule(br.rule) {
		return b
	}
	b := runtime.NewSharedBlockError(runtime.BlockFlow, c.Name(), br.rule, br.rule.LimitApp)
	br.state.blocked.Store(b)
	return b
}

// applies is the limitApp half of Java's selectNodeByRequesterAndStrategy.
func (br *boundRule) applies(c *runtime.Call) bool {
	switch br.app {
	case appOrigin:
		return c.Origin() == br.origin
	case appOther:
		o := c.Origin()
		if o == "" {
			return false
		}
		for _, n := range br.named {
			if n == o {
				return false
			}
		}
		return true
	}
	return true
}

// pass is Java's FlowRuleChecker.canPassCheck for one rule.
func (br *boundRule) pass(c *runtime.Call, acquire int64) bool {
	if br.cluster != nil {
		return br.passCluster(c, acquire)
	}
	return br.passLocal(c, acquire)
}

// passLocal is Java's passLocalCheck for one rule.
func (br *boundRule) passLocal(c *runtime.Call, acquire int64) bool {
	if !br.applies(c) {
		return true
	}
	if br.kind == kindGate {
		// A gate counts at the call's start, the time release gives a
		// refused call's pass back at, whatever waits came in between.
		now := c.StartMillis()
		if br.passes != nil {
			return br.passes.TryAdd(now, stat.Pass, acquire, br.limit)
		}
		if br.grade == GradeQPS {
			return br.gate(c, now).tryPass(now, acquire, br.limit)
		}
		var inFlight int64
		// A dry-run gate counts only the calls it admitted: the node's
		// count also holds the calls it refused and let through.
		if n := br.directNode(c); n != nil && !br.dry {
			inFlight = n.Threads()
		}
		return br.gate(c, now).tryThreads(inFlight, acquire, br.limit)
	}
	node := br.selectNode(c)
	if node == nil {
		return true // Java: no node selected, the rule does not apply
	}
	now := c.NowMillis()
	switch br.kind {
	case kindWarmUp:
		return br.state.warm.pass(node, now, acquire)
	case kindThrottle:
		return br.state.throttle.pass(c, now, acquire, br.dry)
	case kindWarmUpThrottle:
		return br.state.warmThrottle.pass(c, node, now, acquire, br.dry)
	}
	return rejectOnNode(br.grade, br.count, node, now, acquire)
}

// release gives back what a gate granted the call: its thread tokens
// always, its passes when the call was refused after all.
func (br *boundRule) release(c *runtime.Call, acquire int64, refused bool) {
	if br.kind != kindGate || !br.applies(c) {
		return
	}
	if br.dry && br.state.refused.Take(c) {
		return // the gate refused the call and took nothing
	}
	if br.grade == GradeQPS {
		if refused {
			if g := br.existingGate(c); g != nil {
				g.undoPass(c.StartMillis(), acquire)
			}
		}
		return
	}
	if g := br.existingGate(c); g != nil {
		g.releaseThreads()
	}
}

func (br *boundRule) gate(c *runtime.Call, now int64) *gate {
	if br.app == appOther {
		return br.state.gates.forOrigin(c.OriginNode(), now, br.limit)
	}
	return br.single
}

func (br *boundRule) existingGate(c *runtime.Call) *gate {
	if br.app == appOther {
		return br.state.gates.lookup(c.OriginNode())
	}
	return br.single
}

// rejectOnNode is Java's DefaultController: curCount + acquire > count
// blocks, curCount being the node's calls in flight or its pass QPS cast
// to int. The Statistic slot counts the pass afterwards, so concurrent
// callers may overshoot; gates avoid that for Direct rules.
func rejectOnNode(grade Grade, count float64, node *stat.Node, now, acquire int64) bool {
	var cur int64
	if grade == GradeThread {
		cur = node.Threads()
	} else {
		cur = int64(javaInt(node.PassQPS(now)))
	}
	return !(float64(cur+acquire) > count)
}
