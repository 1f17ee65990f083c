package paramflow

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// ValidateRules checks rules as LoadRules does, and loads nothing.
//
// The checks are Java's ParamFlowRuleUtil.isValidRule (resource not blank,
// count >= 0, a known grade, paramIdx set, burstCount >= 0,
// maxQueueingTimeMs >= 0, durationInSec > 0, a valid cluster config in
// cluster mode, a compilable regex that is neither cluster mode nor
// throttling), plus NaN or infinite counts. What Java accepts loads with
// Java's meaning, and LintRules says what it is: a controlBehavior other
// than 0 and 2 is the token bucket, a grade other than 0 and 1 passes every
// call, an item Java skips (no object, no count, a negative count, an
// object that does not parse as its classType) is skipped.
func ValidateRules(rules []Rule) error {
	if errs, _ := validateAll(rules); len(errs) > 0 {
		return errs
	}
	return nil
}

// validateAll also returns the rules' compiled patterns, for LoadRules to
// use rather than compile them again.
func validateAll(rules []Rule) (runtime.RuleErrors, *ruleutil.Regexes) {
	var errs runtime.RuleErrors
	patterns := &ruleutil.Regexes{}
	for i := range rules {
		for _, e := range validate(&rules[i], patterns) {
			e.Index, e.Resource = i, rules[i].Resource
			errs = append(errs, e)
		}
	}
	if len(errs) == 0 {
		if i, reason, ok := patterns.BuildFor(len(rules), func(i int) (string, bool) { return rules[i].Resource, rules[i].Regex }); !ok {
			errs = append(errs, &runtime.RuleError{Index: i, Resource: rules[i].Resource, Field: "resource", Reason: reason})
		}
	}
	return errs, patterns
}

func validate(r *Rule, patterns *ruleutil.Regexes) []*runtime.RuleError {
	var errs []*runtime.RuleError
	bad := func(field, format string, args ...any) {
		errs = append(errs, &runtime.RuleError{Field: field, Reason: fmt.Sprintf(format, args...)})
	}
	if strings.TrimSpace(r.Resource) == "" {
		bad("resource", "is blank")
	} else if r.Regex {
		if err := patterns.Compile(r.Resource); err != nil {
			bad("resource", "%s", ruleutil.RegexReason(err))
		}
	}
	if math.IsNaN(r.Count) || math.IsInf(r.Count, 0) || r.Count < 0 {
		bad("count", "%v is not a number >= 0", r.Count)
	}
	if r.Grade < 0 {
		bad("grade", "%d is negative; want 0 (thread) or 1 (QPS)", int(r.Grade))
	}
	if r.ParamIdx == nil {
		bad("paramIdx", "is missing: it is required (the index of the limited argument; negative counts from the end)")
	}
	if r.ControlBehavior < 0 {
		bad("controlBehavior", "%d is negative; want 0 (token bucket) or 2 (throttling)", int(r.ControlBehavior))
	}
	if r.BurstCount < 0 {
		bad("burstCount", "%d is negative", r.BurstCount)
	}
	if r.DurationInSec < 0 || r.zeroDuration {
		bad("durationInSec", "%d is not > 0", r.DurationInSec)
	}
	if r.MaxQueueingTimeMs < 0 {
		bad("maxQueueingTimeMs", "%d is negative", r.MaxQueueingTimeMs)
	}
	if r.ClusterMode {
		switch cc := r.ClusterConfig; {
		case cc == nil:
			bad("clusterConfig", "is missing: cluster mode needs one")
		default:
			if cc.FlowID <= 0 {
				bad("clusterConfig.flowId", "%d is not > 0", cc.FlowID)
			}
			sc, wi := clusterWindow(cc)
			if sc <= 0 || wi <= 0 || wi%sc != 0 || cc.zeroWindow {
				bad("clusterConfig.windowIntervalMs", "%d ms is not a positive multiple of sampleCount %d", wi, sc)
			}
		}
		if r.Regex {
			bad("clusterMode", "a regex rule cannot be a cluster rule")
		}
	}
	if r.Regex && r.ControlBehavior != BehaviorDefault {
		bad("controlBehavior", "a regex rule must use 0 (token bucket), not %d", int(r.ControlBehavior))
	}
	return errs
}

func clusterWindow(cc *ClusterConfig) (sampleCount, windowIntervalMs int) {
	sampleCount, windowIntervalMs = cc.SampleCount, cc.WindowIntervalMs
	if sampleCount == 0 {
		sampleCount = 10
	}
	if windowIntervalMs == 0 {
		windowIntervalMs = 1000
	}
	return sampleCount, windowIntervalMs
}

// itemKeys parses an item as Java's parseItemValue and returns the keys of
// the Go argument values it matches. Where Java skips an item with a
// warning (ParamFlowRuleUtil.parseHotItems), the error says why and the
// item is skipped here too.
func itemKeys(it Item) ([]key, error) {
	if it.noObject {
		return nil, fmt.Errorf("object is missing")
	}
	if it.noCount {
		return nil, fmt.Errorf("count is missing")
	}
	if it.Count < 0 {
		return nil, fmt.Errorf("count %d is negative", it.Count)
	}
	s, class := it.Object, strings.TrimSpace(it.ClassType)
	parseInt := func(bits int) ([]key, error) {
		v, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			return nil, fmt.Errorf("object %q is not a valid %s", s, class)
		}
		return []key{intKey(v)}, nil
	}
	switch class {
	case "":
		return []key{stringKey(s)}, nil
	case "int", "java.lang.Integer":
		return parseInt(32)
	case "long", "java.lang.Long":
		return parseInt(64)
	case "short", "java.lang.Short":
		return parseInt(16)
	case "byte", "java.lang.Byte":
		return parseInt(8)
	case "boolean", "java.lang.Boolean":
		// Java's Boolean.parseBoolean reads anything but "true" as false;
		// a typo is refused here instead.
		// Java's Boolean.parseBoolean: anything but "true" is false
		// (LintRules warns about what is neither).
		return []key{boolKey(strings.EqualFold(s, "true"))}, nil
	case "double", "java.lang.Double", "float", "java.lang.Float":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("object %q is not a valid %s", s, class)
		}
		// A float32 argument is keyed as float64(float32(x)): match both.
		keys := []key{floatKey(f)}
		if f32 := float64(float32(f)); f32 != f {
			keys = append(keys, floatKey(f32))
		}
		return keys, nil
	case "char":
		r, size := utf8.DecodeRuneInString(s)
		if size == 0 {
			return nil, fmt.Errorf("object is empty: a char needs one character")
		}
		return []key{intKey(int64(r)), stringKey(s[:size])}, nil
	}
	return []key{stringKey(s)}, nil
}

// LintRules reports the rules that Java's ParamFlowRuleUtil.isValidRule
// accepts, and so that load, but that probably do not do what their author
// meant, each with what Java (and this runtime) does with it: a
// controlBehavior other than 0 (token bucket) and 2 (throttling), such as 1
// (warm-up), which Java's ParamFlowChecker runs as the token bucket; a
// grade other than 0 and 1, which passes every call; an item that Java's
// parseHotItems skips; a boolean item that is neither true nor false. The
// result has the shape of a refusal; nothing in it refuses.
func LintRules(rules []Rule) runtime.RuleErrors {
	var out runtime.RuleErrors
	for i := range rules {
		r := &rules[i]
		warn := func(field, format string, args ...any) {
			out = append(out, &runtime.RuleError{Index: i, Resource: r.Resource, Field: field, Reason: fmt.Sprintf(format, args...)})
		}
		if r.Grade > GradeQPS {
			warn("grade", "%d is not 0 (thread) or 1 (QPS); Java loads the rule and it passes every call", int(r.Grade))
		}
		for j, it := range r.ParamFlowItemList {
			field := fmt.Sprintf("paramFlowItemList[%d]", j)
			if _, err := itemKeys(it); err != nil {
				warn(field, "%v; Java skips the item, so the rule's count applies to that value", err)
			} else if c := strings.TrimSpace(it.ClassType); (c == "boolean" || c == "java.lang.Boolean") &&
				!strings.EqualFold(it.Object, "true") && !strings.EqualFold(it.Object, "false") {
				warn(field, "object %q is not true or false; Java's Boolean.parseBoolean reads it as false", it.Object)
			}
		}
		if r.ControlBehavior > 0 && r.ControlBehavior != BehaviorRateLimiter && !r.Regex {
			what := "is not 0 (token bucket) or 2 (throttling)"
			if r.ControlBehavior == 1 || r.ControlBehavior == 3 {
				what = "(warm-up) has no hot-parameter implementation"
			}
			warn("controlBehavior", "%d %s; Java loads the rule and limits with the token bucket, as 0 does", int(r.ControlBehavior), what)
		}
	}
	return out
}
