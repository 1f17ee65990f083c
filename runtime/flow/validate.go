package flow

import (
	"fmt"
	"math"
	"strings"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// ValidateRules checks rules as LoadRules does and loads nothing. The
// error, when not nil, is a runtime.RuleErrors naming each bad rule's
// index, field and reason.
func ValidateRules(rules []Rule) error {
	if errs, _ := validate(rules); len(errs) > 0 {
		return errs
	}
	return nil
}

// validate also returns the rules' compiled patterns, for install to use
// rather than compile them again.
func validate(rules []Rule) (runtime.RuleErrors, *ruleutil.Regexes) {
	var errs runtime.RuleErrors
	patterns := &ruleutil.Regexes{}
	for i := range rules {
		errs = append(errs, validateRule(i, &rules[i], patterns)...)
	}
	if len(errs) == 0 {
		if i, reason, ok := patterns.BuildFor(len(rules), func(i int) (string, bool) { return rules[i].Resource, rules[i].Regex }); !ok {
			errs = append(errs, &runtime.RuleError{Index: i, Resource: rules[i].Resource, Field: "resource", Reason: reason})
		}
	}
	return errs, patterns
}

// validateRule is Java's FlowRuleUtil.isValidRule, which names no reason,
// made to say what is wrong, plus Java's int range. What Java accepts
// loads, with Java's meaning, and LintRules warns about it: an unknown
// strategy code, an unknown controlBehavior code, a thread rule with
// strategy Relate or Chain and no refResource.
func validateRule(i int, r *Rule, patterns *ruleutil.Regexes) runtime.RuleErrors {
	var errs runtime.RuleErrors
	bad := func(field, format string, args ...any) {
		errs = append(errs, &runtime.RuleError{Index: i, Resource: r.Resource, Field: field, Reason: fmt.Sprintf(format, args...)})
	}

	if strings.TrimSpace(r.Resource) == "" {
		bad("resource", "is blank; a rule needs the name of the resource it protects")
	} else if r.Regex {
		if err := patterns.Compile(r.Resource); err != nil {
			bad("resource", "%s", ruleutil.RegexReason(err))
		}
	}
	switch {
	case math.IsNaN(r.Count) || math.IsInf(r.Count, 0):
		bad("count", "%v is not a finite number", r.Count)
	case r.Count < 0:
		bad("count", "%v is negative; it must be >= 0 (0 blocks every call)", r.Count)
	}
	gradeOK := r.Grade == GradeThread || r.Grade == GradeQPS
	if !gradeOK {
		bad("grade", "%d is not one of 0 (Thread), 1 (QPS)", int(r.Grade))
	}
	switch r.Strategy {
	case Direct:
	case Relate, Chain:
		// Java checks refResource for QPS rules only (checkStrategyField).
		if r.Grade == GradeQPS && strings.TrimSpace(r.RefResource) == "" {
			what := "the related resource's name"
			if r.Strategy == Chain {
				what = "the name of the context (entrance) it limits"
			}
			bad("refResource", "is blank; strategy %d (%s) needs %s", int(r.Strategy), r.Strategy, what)
		}
	default:
		if r.Strategy < 0 {
			bad("strategy", "%d is negative; want one of 0..2 (Direct, Relate, Chain)", int(r.Strategy))
		}
	}
	behaviorOK := r.ControlBehavior >= Reject && r.ControlBehavior <= WarmUpThrottling
	if r.ControlBehavior < 0 {
		bad("controlBehavior", "%d is negative; want one of 0..3 (Reject, WarmUp, Throttling, WarmUpThrottling)", int(r.ControlBehavior))
	}
	// Java's fields are ints.
	if r.WarmUpPeriodSec > math.MaxInt32 {
		bad("warmUpPeriodSec", "%d does not fit Java's int", r.WarmUpPeriodSec)
	}
	if r.MaxQueueingTimeMs > math.MaxInt32 {
		bad("maxQueueingTimeMs", "%d does not fit Java's int", r.MaxQueueingTimeMs)
	}
	// Java checks the shaping fields of QPS rules only: thread rules
	// always reject, whatever their behavior says.
	if r.Grade == GradeQPS && behaviorOK {
		if r.ControlBehavior == WarmUp || r.ControlBehavior == WarmUpThrottling {
			if r.WarmUpPeriodSec < 0 || r.explicitZero&zeroWarmUpPeriodSec != 0 {
				bad("warmUpPeriodSec", "%d must be > 0 for controlBehavior %d (%s)", r.WarmUpPeriodSec, int(r.ControlBehavior), r.ControlBehavior)
			}
		}
		if r.ControlBehavior == Throttling || r.ControlBehavior == WarmUpThrottling {
			if r.MaxQueueingTimeMs < 0 || r.explicitZero&zeroMaxQueueingTimeMs != 0 {
				bad("maxQueueingTimeMs", "%d must be > 0 for controlBehavior %d (%s)", r.MaxQueueingTimeMs, int(r.ControlBehavior), r.ControlBehavior)
			}
		}
	}
	if r.Regex {
		if r.ClusterMode {
			bad("clusterMode", "is true on a regex rule; Java allows regex rules only in local mode")
		}
		if r.ControlBehavior > Reject {
			bad("controlBehavior", "%d (%s) on a regex rule; Java allows regex rules only with 0 (Reject)", int(r.ControlBehavior), r.ControlBehavior)
		}
	}
	if r.ClusterMode && gradeOK {
		validateCluster(r, bad)
	}
	return errs
}

// validateCluster is Java's checkClusterField (QPS) and
// checkClusterConcurrentField (thread), plus a known thresholdType.
func validateCluster(r *Rule, bad func(field, format string, args ...any)) {
	cc := r.ClusterConfig
	if cc == nil {
		bad("clusterConfig", "is missing; a rule with clusterMode true needs one (with a flowId)")
		return
	}
	if cc.FlowID <= 0 {
		bad("clusterConfig.flowId", "%d must be > 0", cc.FlowID)
	}
	if cc.ThresholdType != 0 && cc.ThresholdType != 1 {
		bad("clusterConfig.thresholdType", "%d is not one of 0 (average per client), 1 (global)", cc.ThresholdType)
	}
	n := cc.normalized()
	switch {
	case cc.SampleCount < 0 || cc.explicitZero&zeroSampleCount != 0:
		bad("clusterConfig.sampleCount", "%d must be > 0", cc.SampleCount)
	case cc.WindowIntervalMs < 0 || cc.explicitZero&zeroWindowIntervalMs != 0:
		bad("clusterConfig.windowIntervalMs", "%d must be > 0", cc.WindowIntervalMs)
	case n.WindowIntervalMs%n.SampleCount != 0:
		bad("clusterConfig.windowIntervalMs", "%d is not a multiple of sampleCount %d", n.WindowIntervalMs, n.SampleCount)
	}
	if r.Grade == GradeQPS {
		if cc.Strategy != 0 {
			bad("clusterConfig.strategy", "%d is not 0 (normal), the only cluster strategy Java accepts", cc.Strategy)
		}
		return
	}
	if cc.ResourceTimeout < 0 || cc.explicitZero&zeroResourceTimeout != 0 {
		bad("clusterConfig.resourceTimeout", "%d must be > 0", cc.ResourceTimeout)
	}
	if cc.ClientOfflineTime < 0 || cc.explicitZero&zeroClientOfflineTime != 0 {
		bad("clusterConfig.clientOfflineTime", "%d must be > 0", cc.ClientOfflineTime)
	}
	if cc.AcquireRefuseStrategy < 0 {
		bad("clusterConfig.acquireRefuseStrategy", "%d must be >= 0", cc.AcquireRefuseStrategy)
	}
	if cc.ResourceTimeoutStrategy < 0 {
		bad("clusterConfig.resourceTimeoutStrategy", "%d must be >= 0", cc.ResourceTimeoutStrategy)
	}
}

// LintRules reports the rules that Java's FlowRuleUtil.isValidRule accepts,
// and so that load, but that probably do not do what their author meant,
// each with what Java (and this runtime) does with it:
//
//   - an unknown strategy code (3 and up): FlowRuleChecker selects no
//     node for it, so the rule passes every call;
//   - a thread rule with strategy Relate or Chain and no refResource: no
//     node either, every call passes (Java checks refResource for QPS
//     rules only);
//   - an unknown controlBehavior code (4 and up): Java's
//     FlowRuleUtil.generateRater makes it a DefaultController, so the rule
//     rejects over its count, as 0 (Reject) does.
//
// The result has the shape of a refusal (index, resource, field, reason);
// nothing in it refuses anything.
func LintRules(rules []Rule) runtime.RuleErrors {
	var out runtime.RuleErrors
	for i := range rules {
		r := &rules[i]
		warn := func(field, format string, args ...any) {
			out = append(out, &runtime.RuleError{Index: i, Resource: r.Resource, Field: field, Reason: fmt.Sprintf(format, args...)})
		}
		switch {
		case r.Strategy > Chain:
			warn("strategy", "%d is not one of 0..2 (Direct, Relate, Chain); Java loads the rule and it passes every call (no statistics to read)", int(r.Strategy))
		case (r.Strategy == Relate || r.Strategy == Chain) && r.Grade == GradeThread && r.RefResource == "":
			warn("refResource", "is blank on a thread rule with strategy %d (%s); Java loads the rule and it passes every call (no statistics to read)", int(r.Strategy), r.Strategy)
		}
		if r.ControlBehavior > WarmUpThrottling {
			if r.Grade == GradeQPS {
				warn("controlBehavior", "%d is not one of 0..3; Java loads the rule and rejects calls over its count, as 0 (Reject) does", int(r.ControlBehavior))
			} else {
				warn("controlBehavior", "%d is not one of 0..3; Java ignores it, as every thread rule rejects calls over its count", int(r.ControlBehavior))
			}
		}
	}
	return out
}
