package datasource

import (
	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/authority"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/sentinelgen/sentinelgen/runtime/system"
)

// The rule kinds of Java Sentinel, each loaded through its package's
// Property (Sentinel's XxxRuleManager.register2Property).
//
// Each names its thresholds (WithThresholds): the fields a misspelling
// must not leave unset, because the rule would then protect something
// else than its author meant.
var (
	// Flow is a JSON array of flow.Rule (Java's FlowRule): flowrule.json.
	// Without count a rule blocks every call.
	Flow = NewKind("flow", flow.Property(), flow.ValidateRules, flow.Rules, WithLint(flow.LintRules),
		WithThresholds[flow.Rule]("count"))
	// Degrade is a JSON array of degrade.Rule (Java's DegradeRule).
	// Without count a slow-call breaker counts every call as slow, an
	// error breaker opens on the first error; without slowRatioThreshold
	// a slow-call breaker opens only when every call is slow.
	Degrade = NewKind("degrade", degrade.Property(), degrade.ValidateRules, degrade.Rules,
		WithThresholds[degrade.Rule]("count", "slowRatioThreshold"))
	// System is a JSON array of system.Rule (Java's SystemRule). A
	// threshold left out is not checked at all.
	System = NewKind("system", system.Property(), system.ValidateRules, system.Rules, WithLint(system.LintRules),
		WithThresholds[system.Rule]("highestSystemLoad", "highestCpuUsage", "qps", "avgRt", "maxThread"))
	// Authority is a JSON array of authority.Rule (Java's AuthorityRule).
	// Without strategy a rule is a white list: a black list misspelt
	// refuses every caller it does not name.
	Authority = NewKind("authority", authority.Property(), authority.ValidateRules, authority.Rules, WithLint(authority.LintRules),
		WithThresholds[authority.Rule]("strategy"))
	// ParamFlow is a JSON array of paramflow.Rule (Java's ParamFlowRule).
	// Without count a rule blocks every call that has the argument.
	ParamFlow = NewKind("paramFlow", paramflow.Property(), paramflow.ValidateRules, paramflow.Rules, WithLint(paramflow.LintRules),
		WithThresholds[paramflow.Rule]("count"))
	// Adaptive is a JSON array of adaptive.Rule (adaptive concurrency
	// limits; Java Sentinel has no such rule): adaptive.json. It has no
	// threshold: every field has a default under which the limit still
	// adapts, so a misspelt one is a warning.
	Adaptive = NewKind("adaptive", adaptive.Property(), adaptive.ValidateRules, adaptive.Rules)
	// Combined is one document with every kind under its name:
	// {"flow": [...], "degrade": [...], "system": [...], "authority": [...], "paramFlow": [...], "adaptive": [...]}.
	// See NewCombined for absent keys and all-or-nothing loading.
	Combined = NewCombined(Flow, Degrade, System, Authority, ParamFlow, Adaptive)
)

// Kinds returns the built-in rule kinds in chain order (Java's slot
// order): Authority, System, ParamFlow, Flow, Adaptive, Degrade. Metrics
// and the dashboards report the rules in force through them.
func Kinds() []Kind { return []Kind{Authority, System, ParamFlow, Flow, Adaptive, Degrade} }

func init() {
	for _, k := range []Kind{Flow, Degrade, System, Authority, ParamFlow, Adaptive, Combined} {
		builtin[k.Name()] = k
	}
}
