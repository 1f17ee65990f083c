package datasource

import (
	"reflect"
	"slices"
	"strings"
)

// This file lists what Java's Sentinel dashboard (sentinel-dashboard,
// datasource/entity/rule) keeps of each kind of rule. The console stores
// the rules it reads from a service in its rule entities and, after any
// edit, pushes every rule of the kind back from them: a field an entity
// does not carry comes back missing, or at Java's default. KeepUncarried
// takes such fields from the rule in force instead.

// dashboardCarries is, per rule kind, the JSON fields of this package's
// rules that the dashboard's entity for the kind carries through a push.
//
//   - flow: FlowRuleEntity copies these fields in fromFlowRule and back in
//     toRule; not regex, though Java's FlowRule has it (so a push writes
//     "regex": false), nor dryRun.
//   - degrade: DegradeRuleEntity likewise; not regex, nor dryRun.
//   - system: SystemRuleEntity likewise; not dryRun.
//   - authority, paramFlow: AuthorityRuleEntity and ParamFlowRuleEntity
//     hold Java's AuthorityRule and ParamFlowRule whole, every Java field
//     (regex included); not dryRun.
//   - adaptive: Java has no such rule and its dashboard never sends one;
//     a writer of adaptive rules through setRules is taken to carry every
//     field but dryRun.
//
// A field of a rule type that is not listed for its kind, such as one
// added to this project's rules later, is one the dashboard does not
// carry: it is kept from the rule in force, never dropped by a push.
var dashboardCarries = map[string][]string{
	"flow": {"resource", "limitApp", "grade", "count", "strategy", "refResource", "controlBehavior",
		"warmUpPeriodSec", "maxQueueingTimeMs", "clusterMode", "clusterConfig"},
	"degrade": {"resource", "limitApp", "count", "timeWindow", "grade", "minRequestAmount",
		"slowRatioThreshold", "statIntervalMs"},
	"system":    {"highestSystemLoad", "avgRt", "maxThread", "qps", "highestCpuUsage"},
	"authority": {"resource", "limitApp", "regex", "strategy"},
	"paramFlow": {"resource", "limitApp", "regex", "grade", "paramIdx", "count", "controlBehavior",
		"maxQueueingTimeMs", "burstCount", "durationInSec", "paramFlowItemList", "clusterMode", "clusterConfig"},
	"adaptive": {"resource", "minLimit", "maxLimit", "initialLimit", "rttTolerance", "sampleIntervalMs",
		"minSamples", "probeIntervalMs", "probeSamples", "maxQueueingTimeMs"},
}

// dashboardDefaults is, per rule kind, the fields that Java's rule class
// has and the dashboard's entity drops: its toRule leaves them at Java's
// default, which the push writes. Such a field at its default says
// nothing; any other value was written by someone who knows the field.
var dashboardDefaults = map[string][]string{
	"flow":    {"regex"},
	"degrade": {"regex"},
}

// uncarried is a field of rule type R that the dashboard does not carry.
type uncarried struct {
	index int    // the struct field's index
	name  string // its JSON name
	// javaDefault: the dashboard writes Java's default (the zero value)
	// for it, so the zero value says nothing; otherwise only its absence
	// does.
	javaDefault bool
}

// uncarriedFields are the fields of rule type t, a rule of kind kind,
// that the dashboard does not carry. A kind with no entry (a kind of
// one's own) is taken to carry every field but dryRun.
func uncarriedFields(kind string, t reflect.Type) []uncarried {
	carries, ok := dashboardCarries[kind]
	if !ok {
		if i := fieldTagged(t, "dryRun", reflect.Bool); i >= 0 {
			return []uncarried{{index: i, name: "dryRun"}}
		}
		return nil
	}
	var out []uncarried
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" || slices.Contains(carries, name) {
			continue
		}
		out = append(out, uncarried{index: i, name: name, javaDefault: slices.Contains(dashboardDefaults[kind], name)})
	}
	return out
}
