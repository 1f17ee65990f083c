package system

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// thresholds is a compiled rule set: the strictest value of each field
// across the rules, and the rule that set it (BlockError.Rule returns it).
// It is immutable once published.
type thresholds struct {
	rules []Rule // as loaded
	// ptrs are the rules the *Rule fields below point to, one per rule:
	// into rules, or to the equal rule of the set loaded before, so that
	// BlockError.Rule and the block log's key survive a reload.
	ptrs []*Rule

	load, cpu, qps    float64
	rt, thread        int64
	loadRule, cpuRule *Rule
	qpsRule, rtRule   *Rule
	threadRule        *Rule

	// dry is the thresholds of the dry-run rules, compiled apart from the
	// enforcing ones; nil when there are none.
	dry *thresholds
}

func (t *thresholds) anySet() bool {
	return t.loadRule != nil || t.cpuRule != nil || t.qpsRule != nil || t.rtRule != nil || t.threadRule != nil
}

// needsReadings reports whether a machine-state threshold is set, so that
// the background sampler must run.
func (t *thresholds) needsReadings() bool {
	return t.loadRule != nil || t.cpuRule != nil || (t.dry != nil && t.dry.needsReadings())
}

var (
	loadMu   sync.Mutex // serialises LoadRules and the sampler's lifecycle
	inForce  atomic.Pointer[thresholds]
	property = runtime.NewProperty(LoadRules)
)

// Property is the system rules' property, which data sources update.
func Property() *runtime.Property[[]Rule] { return property }

// ValidateRules checks rules as LoadRules does, and loads nothing.
//
// A negative field is unset and any value >= 0 is a threshold, as in Java.
// Refused (Java has no validation at all for system rules): NaN or
// infinite values. highestCpuUsage above 1 loads and is ignored, as Java
// ignores it (LintRules warns).
func ValidateRules(rules []Rule) error {
	var errs runtime.RuleErrors
	for i := range rules {
		r := &rules[i]
		bad := func(field, reason string) {
			errs = append(errs, &runtime.RuleError{Index: i, Field: field, Reason: reason})
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"highestSystemLoad", r.HighestSystemLoad}, {"highestCpuUsage", r.HighestCPUUsage}, {"qps", r.QPS}} {
			if !finite(f.v) {
				bad(f.name, fmt.Sprintf("%v is not a finite number (negative means unset)", f.v))
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// LintRules reports what Java's SystemRuleManager loads but ignores: a
// highestCpuUsage above 1 (CPU usage is a fraction in 0..1). The result
// has the shape of a refusal; nothing in it refuses.
func LintRules(rules []Rule) runtime.RuleErrors {
	var out runtime.RuleErrors
	for i := range rules {
		if v := rules[i].HighestCPUUsage; finite(v) && v > 1 {
			out = append(out, &runtime.RuleError{Index: i, Field: "highestCpuUsage",
				Reason: fmt.Sprintf("%v is above 1; Java ignores it (CPU usage is a fraction in 0..1) and loads the rest of the rule", v)})
		}
	}
	return out
}

// LoadRules replaces the system rules in force with rules, or refuses the
// whole set (the rules in force stay) with a runtime.RuleErrors. The
// strictest value of each field across rules is in force. nil or empty
// clears the rules. Loading a load or CPU threshold starts the background
// sampler (taking a first reading before the rules take effect); loading a
// set without one stops it.
func LoadRules(rules []Rule) error {
	if err := ValidateRules(rules); err != nil {
		return err
	}
	loadMu.Lock()
	defer loadMu.Unlock()
	t := compile(rules, inForce.Load())
	if t.needsReadings() {
		startSampler()
	} else {
		stopSampler()
	}
	if len(rules) > 0 {
		inForce.Store(t)
	} else {
		inForce.Store(nil)
	}
	runtime.RulesChanged()
	if len(rules) > 0 {
		runtime.Logger().Info("sentinel: system rules loaded", "rules", len(rules), "inForce", InForce().String())
	}
	return nil
}

// compile takes the strictest value of each threshold across the
// enforcing rules, and apart from them across the dry-run rules.
// old is the set in force, whose rules equal ones keep (nil: none).
func compile(rules []Rule, old *thresholds) *thresholds {
	t := &thresholds{rules: append([]Rule(nil), rules...), ptrs: make([]*Rule, len(rules))}
	prev := map[Rule]*Rule{}
	if old != nil {
		for _, p := range old.ptrs {
			if prev[*p] == nil {
				prev[*p] = p
			}
		}
	}
	for i := range t.rules {
		if p := prev[t.rules[i]]; p != nil {
			t.ptrs[i] = p
		} else {
			t.ptrs[i] = &t.rules[i]
		}
	}
	t.strictest(t.ptrs, false)
	if d := (&thresholds{}); d.strictest(t.ptrs, true) {
		t.dry = d
	}
	return t
}

// strictest sets t from those of rules whose DryRun is dry, and reports
// whether any threshold was set.
func (t *thresholds) strictest(rules []*Rule, dry bool) bool {
	for _, r := range rules {
		if r.DryRun != dry {
			continue
		}
		if v := r.HighestSystemLoad; v >= 0 && (t.loadRule == nil || v < t.load) {
			t.load, t.loadRule = v, r
		}
		// Java's SystemRuleManager ignores a CPU usage above 1.
		if v := r.HighestCPUUsage; v >= 0 && v <= 1 && (t.cpuRule == nil || v < t.cpu) {
			t.cpu, t.cpuRule = v, r
		}
		if v := r.QPS; v >= 0 && (t.qpsRule == nil || v < t.qps) {
			t.qps, t.qpsRule = v, r
		}
		if v := r.AvgRT; v >= 0 && (t.rtRule == nil || v < t.rt) {
			t.rt, t.rtRule = v, r
		}
		if v := r.MaxThread; v >= 0 && (t.threadRule == nil || v < t.thread) {
			t.thread, t.threadRule = v, r
		}
	}
	return t.anySet()
}

// Rules returns a copy of the rules in force, as they were loaded.
func Rules() []Rule {
	t := inForce.Load()
	if t == nil {
		return nil
	}
	return append([]Rule(nil), t.rules...)
}

// InForce returns the thresholds in force as one rule: the strictest value
// of each field across the loaded enforcing rules, Unset where no rule sets
// it (Java's getRules returns the same figures as one synthetic rule per
// threshold). Dry-run rules are left out: see DryRunInForce.
func InForce() Rule {
	return inForce.Load().asRule()
}

// DryRunInForce returns the thresholds of the dry-run rules as one dry-run
// rule, as InForce does for the enforcing ones.
func DryRunInForce() Rule {
	var d *thresholds
	if t := inForce.Load(); t != nil {
		d = t.dry
	}
	r := d.asRule()
	r.DryRun = true
	return r
}

func (t *thresholds) asRule() Rule {
	r := NewRule()
	if t == nil {
		return r
	}
	if t.loadRule != nil {
		r.HighestSystemLoad = t.load
	}
	if t.cpuRule != nil {
		r.HighestCPUUsage = t.cpu
	}
	if t.qpsRule != nil {
		r.QPS = t.qps
	}
	if t.rtRule != nil {
		r.AvgRT = t.rt
	}
	if t.threadRule != nil {
		r.MaxThread = t.thread
	}
	return r
}
