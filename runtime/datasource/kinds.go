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
var (
	// Flow is a JSON array of flow.Rule (Java's FlowRule): flowrule.json.
	Flow = NewKind("flow", flow.Property(), flow.ValidateRules, flow.Rules, WithLint(flow.LintRules))
	// Degrade is a JSON array of degrade.Rule (Java's DegradeRule).
	Degrade = NewKind("degrade", degrade.Property(), degrade.ValidateRules, degrade.Rules)
	// System is a JSON array of system.Rule (Java's SystemRule).
	System = NewKind("system", system.Property(), system.ValidateRules, system.Rules, WithLint(system.LintRules))
	// Authority is a JSON array of authority.Rule (Java's AuthorityRule).
	Authority = NewKind("authority", authority.Property(), authority.ValidateRules, authority.Rules, WithLint(authority.LintRules))
	// ParamFlow is a JSON array of paramflow.Rule (Java's ParamFlowRule).
	ParamFlow = NewKind("paramFlow", paramflow.Property(), paramflow.ValidateRules, paramflow.Rules, WithLint(paramflow.LintRules))
	// Adaptive is a JSON array of adaptive.Rule (adaptive concurrency
	// limits; Java Sentinel has no such rule): adaptive.json.
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
