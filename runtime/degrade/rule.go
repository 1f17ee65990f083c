package degrade

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
)

// Grade is what a breaker measures (Java's DegradeRule.grade, the
// CircuitBreakerStrategy).
type Grade int

const (
	SlowRequestRatio Grade = 0 // DEGRADE_GRADE_RT: the ratio of calls slower than count ms
	ErrorRatio       Grade = 1 // DEGRADE_GRADE_EXCEPTION_RATIO: the ratio of calls that failed
	ErrorCount       Grade = 2 // DEGRADE_GRADE_EXCEPTION_COUNT: the number of calls that failed
)

// gradeEnum names the grades: Java's codes and the readable names JSON may
// use instead.
var gradeEnum = ruleutil.Enum{Type: "Grade", Names: map[int][]string{
	0: {"SlowRequestRatio", "RT", "DEGRADE_GRADE_RT", "SLOW_REQUEST_RATIO"},
	1: {"ErrorRatio", "ExceptionRatio", "DEGRADE_GRADE_EXCEPTION_RATIO", "ERROR_RATIO"},
	2: {"ErrorCount", "ExceptionCount", "DEGRADE_GRADE_EXCEPTION_COUNT", "ERROR_COUNT"},
}}

func (g Grade) String() string { return gradeEnum.String(int(g)) }

// MarshalJSON writes Java's numeric code.
func (g Grade) MarshalJSON() ([]byte, error) { return gradeEnum.Marshal(int(g)) }

// UnmarshalJSON accepts Java's numeric code or a readable name
// ("SlowRequestRatio", "RT", "ErrorRatio", "ExceptionCount", ...).
func (g *Grade) UnmarshalJSON(data []byte) error { return gradeEnum.Unmarshal(data, (*int)(g)) }

// Java's defaults for the fields whose zero value is not theirs.
const (
	DefaultMinRequestAmount   = 5    // RuleConstant.DEGRADE_DEFAULT_MIN_REQUEST_AMOUNT
	DefaultStatIntervalMs     = 1000 // DegradeRule.statIntervalMs
	DefaultSlowRatioThreshold = 1.0  // DegradeRule.slowRatioThreshold

	// DefaultResource is the resource of default rules: they apply to every
	// resource that has no degrade rule of its own (Sentinel 2.0's
	// DefaultCircuitBreakerRuleManager.DEFAULT_KEY).
	DefaultResource = "*"
)

// Rule is a circuit-breaking rule: Java's DegradeRule, with its JSON field
// names. Each rule gets its own breaker per resource it applies to.
type Rule struct {
	// Resource is the protected resource's name; a pattern when Regex is
	// set; "*" (without Regex) for a default rule. Required.
	Resource string `json:"resource"`
	// LimitApp is accepted for compatibility and otherwise unused: Java's
	// breakers ignore the caller's origin. Blank means "default".
	LimitApp string `json:"limitApp"`
	// Grade is what the breaker measures. The zero value is
	// SlowRequestRatio, Java's default.
	Grade Grade `json:"grade"`
	// Count is the threshold: for SlowRequestRatio the maximum response
	// time in ms (rounded as Java's Math.round), above which a call is
	// slow; for ErrorRatio a ratio in [0, 1]; for ErrorCount a number of
	// errors. The breaker opens when the measure exceeds it (strictly).
	Count float64 `json:"count"`
	// TimeWindow is how long, in seconds, an open breaker refuses calls
	// before it lets one probe through. It must be > 0; zero (Java's
	// default) is refused.
	TimeWindow int `json:"timeWindow"`
	// MinRequestAmount is the number of calls a statistics window needs
	// before the breaker may open. Zero in Go code means Java's default, 5;
	// an explicit 0 in JSON is refused, as Java refuses it.
	MinRequestAmount int `json:"minRequestAmount"`
	// SlowRatioThreshold is, for SlowRequestRatio, the ratio of slow calls
	// in [0, 1] above which the breaker opens (exactly 1.0 also opens at
	// 1.0). Absent from JSON it is Java's 1.0; in Go code the zero value is
	// 0.0, a valid threshold that opens on any slow call: set it.
	SlowRatioThreshold float64 `json:"slowRatioThreshold"`
	// StatIntervalMs is the length of the breaker's statistics window
	// (one tumbling bucket, aligned to multiples of it). Zero in Go code
	// means Java's default, 1000; an explicit 0 in JSON is refused.
	StatIntervalMs int `json:"statIntervalMs"`
	// Regex makes Resource a regular expression that must match a whole
	// resource name (Java's Pattern.matches, in Go's RE2 syntax). Every
	// matching resource gets a breaker of its own.
	Regex bool `json:"regex"`
	// DryRun runs the breaker fully (statistics, state machine, probes)
	// but admits every call: the calls an open breaker would have refused
	// are counted apart (runtime.Resource.DryRunBlockCount, the block
	// log's dry-run lines), and Breakers shows the state it would be in.
	// Switching DryRun is a one-field edit that keeps the breaker and its
	// state. Java Sentinel ignores the field and would enforce the rule.
	DryRun bool `json:"dryRun,omitempty"`

	// explicitZero records fields that JSON set to 0 where Go code's 0
	// means "Java's default", so that validation can refuse them as Java
	// does. Always 0 for rules built in Go and for rules in force.
	explicitZero uint8
}

const (
	zeroMinRequestAmount uint8 = 1 << iota
	zeroStatIntervalMs
)

// ResourceName is the rule's resource (a pattern for regex rules, "*" for
// default rules).
func (r *Rule) ResourceName() string { return r.Resource }

// IsDefault reports whether r is a default rule (resource "*", not a regex).
func (r *Rule) IsDefault() bool { return r.Resource == DefaultResource && !r.Regex }

// UnmarshalJSON fills Java's defaults for absent fields (minRequestAmount
// 5, slowRatioThreshold 1.0, statIntervalMs 1000) and accepts unknown fields
// (id, app, gmtCreate, passCount, ...).
func (r *Rule) UnmarshalJSON(data []byte) error {
	type plain Rule
	p := plain{
		MinRequestAmount:   DefaultMinRequestAmount,
		SlowRatioThreshold: DefaultSlowRatioThreshold,
		StatIntervalMs:     DefaultStatIntervalMs,
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	p.explicitZero = 0
	if p.MinRequestAmount == 0 {
		p.explicitZero |= zeroMinRequestAmount
	}
	if p.StatIntervalMs == 0 {
		p.explicitZero |= zeroStatIntervalMs
	}
	*r = Rule(p)
	return nil
}

// normalized returns r with Java's defaults in place of Go's zero values:
// the rule as it is in force and as Rules reports it.
func (r Rule) normalized() Rule {
	r.LimitApp = ruleutil.LimitApp(r.LimitApp)
	if r.MinRequestAmount == 0 {
		r.MinRequestAmount = DefaultMinRequestAmount
	}
	if r.StatIntervalMs == 0 {
		r.StatIntervalMs = DefaultStatIntervalMs
	}
	r.explicitZero = 0
	return r
}

// maxAllowedRT is Java's Math.round(count) for slow-request rules.
func (r *Rule) maxAllowedRT() int64 {
	v := math.Floor(r.Count + 0.5)
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}

// String describes the rule for logs.
func (r *Rule) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "degrade rule {resource %q", r.Resource)
	if r.Regex {
		b.WriteString(" (regex)")
	}
	n := r.normalized()
	switch r.Grade {
	case SlowRequestRatio:
		fmt.Fprintf(&b, ", slow ratio above %v of calls slower than %v ms", r.SlowRatioThreshold, r.Count)
	case ErrorRatio:
		fmt.Fprintf(&b, ", error ratio above %v", r.Count)
	case ErrorCount:
		fmt.Fprintf(&b, ", error count above %v", r.Count)
	default:
		fmt.Fprintf(&b, ", grade %s, count %v", r.Grade, r.Count)
	}
	fmt.Fprintf(&b, ", minRequestAmount %d per %d ms, open %d s", n.MinRequestAmount, n.StatIntervalMs, r.TimeWindow)
	if r.DryRun {
		b.WriteString(", dry run")
	}
	b.WriteString("}")
	return b.String()
}
