// Package inforce lists what the runtime enforces right now, for the
// observers that report it (runtime/metrics, runtime/dashboard): the rules in
// force of each kind, and the circuit breakers with their states.
//
// It reads the rule packages' own accessors (flow.Rules, degrade.Breakers,
// ...) when asked, and keeps nothing. Importing it imports every rule
// package, which registers their slots; a slot without rules binds to no
// resource, so calls pay nothing for it.
package inforce

import (
	"github.com/sentinelgen/sentinelgen/runtime/authority"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/sentinelgen/sentinelgen/runtime/system"
)

// Kind is one kind of rule the runtime enforces.
type Kind struct {
	// Name is the kind's name, as data sources and combined rule files
	// name it: "flow", "degrade", "system", "authority", "paramFlow".
	Name string
	// Rules returns a copy of the rules in force, a slice of the rule
	// package's Rule type, which encodes to JSON with Java's field names.
	Rules func() any
	// Count returns how many rules are in force.
	Count func() int
}

// KindOf makes a Kind from a rule package's Rules function. Applications
// with rule kinds of their own (a custom slot) report them with it.
func KindOf[R any](name string, rules func() []R) Kind {
	return Kind{
		Name: name,
		Rules: func() any {
			if r := rules(); r != nil {
				return r
			}
			return []R{} // JSON [] rather than null
		},
		Count: func() int { return len(rules()) },
	}
}

// Kinds returns the built-in rule kinds in chain order (Java's slot
// order).
func Kinds() []Kind {
	return []Kind{
		KindOf("authority", authority.Rules),
		KindOf("system", system.Rules),
		KindOf("paramFlow", paramflow.Rules),
		KindOf("flow", flow.Rules),
		KindOf("degrade", degrade.Rules),
	}
}

// Breakers lists the circuit breakers of the degrade rules in force, by
// resource and then rule order (degrade.Breakers).
func Breakers() []degrade.BreakerInfo { return degrade.Breakers() }
