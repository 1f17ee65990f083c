package degrade

import (
	"fmt"
	"math"
	"strings"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// ValidateRules checks rules as LoadRules does and loads nothing. The
// error is a runtime.RuleErrors naming each bad rule's index, field and
// reason.
func ValidateRules(rules []Rule) error {
	_, err := validate(rules)
	return err
}

// validate applies Java's DegradeRuleManager.isValidRule, plus the checks
// Java leaves out (NaN and infinite numbers, Java's int range), to every
// rule. It returns the regex rules' patterns, compiled and built.
func validate(rules []Rule) (*ruleutil.Regexes, error) {
	var errs runtime.RuleErrors
	compiler := &ruleutil.Regexes{} // bounds the set's patterns in all
	for i := range rules {
		r := &rules[i]
		bad := func(field, format string, args ...any) {
			errs = append(errs, &runtime.RuleError{Index: i, Resource: r.Resource, Field: field, Reason: fmt.Sprintf(format, args...)})
		}
		if strings.TrimSpace(r.Resource) == "" {
			bad("resource", "is required")
		} else if r.Regex {
			if err := compiler.Compile(r.Resource); err != nil {
				bad("resource", "%s", ruleutil.RegexReason(err))
			}
		}
		switch {
		case math.IsNaN(r.Count) || math.IsInf(r.Count, 0):
			bad("count", "%v is not a finite number", r.Count)
		case r.Count < 0:
			bad("count", "%v is negative; it must be >= 0", r.Count)
		case r.Grade == ErrorRatio && r.Count > 1:
			bad("count", "%v is an error ratio and must be in [0, 1]", r.Count)
		}
		switch {
		case r.TimeWindow <= 0:
			bad("timeWindow", "%d must be > 0 (seconds an open breaker waits before a probe)", r.TimeWindow)
		case r.TimeWindow > math.MaxInt32:
			bad("timeWindow", "%d is beyond Java's int range", r.TimeWindow)
		}
		switch {
		case r.MinRequestAmount < 0 || r.explicitZero&zeroMinRequestAmount != 0:
			bad("minRequestAmount", "%d must be > 0 (leave it out for the default %d)", r.MinRequestAmount, DefaultMinRequestAmount)
		case r.MinRequestAmount > math.MaxInt32:
			bad("minRequestAmount", "%d is beyond Java's int range", r.MinRequestAmount)
		}
		switch {
		case r.StatIntervalMs < 0 || r.explicitZero&zeroStatIntervalMs != 0:
			bad("statIntervalMs", "%d must be > 0 (leave it out for the default %d)", r.StatIntervalMs, DefaultStatIntervalMs)
		case r.StatIntervalMs > math.MaxInt32:
			bad("statIntervalMs", "%d is beyond Java's int range", r.StatIntervalMs)
		}
		switch r.Grade {
		case SlowRequestRatio:
			if t := r.SlowRatioThreshold; math.IsNaN(t) || t < 0 || t > 1 {
				bad("slowRatioThreshold", "%v is not a ratio in [0, 1]", t)
			}
		case ErrorRatio, ErrorCount:
			// Java does not read slowRatioThreshold for these grades;
			// only a non-number is refused, as everywhere.
			if t := r.SlowRatioThreshold; math.IsNaN(t) || math.IsInf(t, 0) {
				bad("slowRatioThreshold", "%v is not a finite number", t)
			}
		default:
			bad("grade", "%d is not one of 0 (slow request ratio), 1 (error ratio), 2 (error count)", int(r.Grade))
		}
	}
	if len(errs) == 0 {
		if i, reason, ok := compiler.BuildFor(len(rules), func(i int) (string, bool) { return rules[i].Resource, rules[i].Regex }); !ok {
			errs = append(errs, &runtime.RuleError{Index: i, Resource: rules[i].Resource, Field: "resource", Reason: reason})
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return compiler, nil
}
