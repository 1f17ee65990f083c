package paramflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
)

// Grade is what a rule limits per argument value: calls in flight or calls
// per duration (Java's RuleConstant.FLOW_GRADE_*).
type Grade int

const (
	GradeThread Grade = 0 // calls of a value in flight
	GradeQPS    Grade = 1 // calls of a value per durationInSec; Java's default
)

var gradeEnum = ruleutil.Enum{Type: "Grade", Names: map[int][]string{0: {"thread", "FLOW_GRADE_THREAD"}, 1: {"QPS", "FLOW_GRADE_QPS"}}, Open: true}

func (g Grade) String() string { return gradeEnum.String(int(g)) }

// UnmarshalJSON accepts Java's code (0, 1) or a name ("thread", "QPS").
func (g *Grade) UnmarshalJSON(data []byte) error {
	if err := gradeEnum.Unmarshal(data, (*int)(g)); err != nil {
		return errors.New("grade " + err.Error())
	}
	return nil
}

// ControlBehavior is how a QPS rule admits a value's calls (Java's
// RuleConstant.CONTROL_BEHAVIOR_*). Hot-parameter rules know two: the
// token bucket (0) and throttling (2). Any other code loads as the token
// bucket, as in Java (LintRules warns about it).
type ControlBehavior int

const (
	BehaviorDefault     ControlBehavior = 0 // token bucket with burst
	BehaviorRateLimiter ControlBehavior = 2 // throttling: calls evenly spaced, queued up to maxQueueingTimeMs
)

var behaviorEnum = ruleutil.Enum{Type: "ControlBehavior", Names: map[int][]string{
	0: {"default", "token bucket", "CONTROL_BEHAVIOR_DEFAULT"},
	1: {"warm up", "CONTROL_BEHAVIOR_WARM_UP"},
	2: {"rate limiter", "throttling", "CONTROL_BEHAVIOR_RATE_LIMITER"},
	3: {"warm up rate limiter", "CONTROL_BEHAVIOR_WARM_UP_RATE_LIMITER"},
}, Open: true}

func (b ControlBehavior) String() string { return behaviorEnum.String(int(b)) }

// UnmarshalJSON accepts Java's code or a name ("default", "throttling").
func (b *ControlBehavior) UnmarshalJSON(data []byte) error {
	if err := behaviorEnum.Unmarshal(data, (*int)(b)); err != nil {
		return errors.New("controlBehavior " + err.Error())
	}
	return nil
}

// Rule is Java's ParamFlowRule: a limit per value of one argument of a
// resource's calls. JSON field names are Java's; the zero value of each
// field is documented with it.
type Rule struct {
	// Resource is the resource name, or a pattern when Regex is set.
	Resource string `json:"resource"`
	// LimitApp is kept for Java compatibility ("default" when blank); as
	// in Java, hot-parameter rules do not look at the caller's origin.
	LimitApp string `json:"limitApp,omitempty"`
	// Grade: thread or QPS. Java's default for absent JSON is QPS (1); the
	// Go zero value is GradeThread, so set it in Go code (or use NewRule).
	Grade Grade `json:"grade"`
	// ParamIdx is the index of the limited argument; negative counts from
	// the end (-1 is the last). Required: nil is invalid (Java's null).
	// Index(i) makes one.
	ParamIdx *int `json:"paramIdx"`
	// Count is the limit per value (truncated to a whole number, as Java's
	// cast to long): calls per DurationInSec for QPS, calls in flight for
	// thread. 0 blocks every value not listed in ParamFlowItemList.
	Count float64 `json:"count"`
	// ControlBehavior: BehaviorDefault (token bucket, the zero value) or
	// BehaviorRateLimiter (throttling). Thread grade ignores it.
	ControlBehavior ControlBehavior `json:"controlBehavior"`
	// MaxQueueingTimeMs is how long throttling may hold a call; 0 (Java's
	// default here) holds none.
	MaxQueueingTimeMs int64 `json:"maxQueueingTimeMs"`
	// BurstCount is extra tokens a value's bucket holds beyond Count.
	BurstCount int64 `json:"burstCount"`
	// DurationInSec is the span Count is measured over. 0 in Go code means
	// Java's default, 1; an explicit 0 in JSON is refused, as Java refuses
	// it.
	DurationInSec int64 `json:"durationInSec"`
	// ParamFlowItemList gives particular values their own limit.
	ParamFlowItemList []Item `json:"paramFlowItemList,omitempty"`
	// ClusterMode asks the ClusterChecker (SetClusterChecker; package
	// runtime/cluster on Redis) for tokens. Without one, as Java without a
	// token server, a cluster QPS rule limits locally when
	// ClusterConfig.FallbackToLocalWhenFail is set and does nothing
	// otherwise.
	ClusterMode   bool           `json:"clusterMode"`
	ClusterConfig *ClusterConfig `json:"clusterConfig,omitempty"`
	// Regex makes Resource a pattern that must match a whole resource name;
	// each matched resource gets its own per-value state.
	Regex bool `json:"regex"`
	// DryRun runs the rule fully (its per-value tokens, queues and thread
	// counts) but admits every call: the calls it would have blocked are
	// counted apart (runtime.Resource.DryRunBlockCount, the block log's
	// dry-run lines). A dry-run throttling rule never makes a call wait;
	// it takes the call's turn as if it had. DryRun is no part of the
	// rule's identity: switching it keeps the rule's per-value state, and
	// a rule equal to another but for DryRun is a duplicate (the first is
	// kept). Java Sentinel ignores the field and would enforce the rule.
	DryRun bool `json:"dryRun,omitempty"`

	// zeroDuration records a JSON durationInSec of 0, where Go's 0 means
	// Java's default: validation refuses it, as Java does. Always false for
	// rules built in Go.
	zeroDuration bool
}

// NewRule returns a QPS rule of count calls per second per value of
// argument paramIdx, with Java's defaults.
func NewRule(resource string, paramIdx int, count float64) Rule {
	return Rule{Resource: resource, Grade: GradeQPS, ParamIdx: Index(paramIdx), Count: count, DurationInSec: 1}
}

// Index returns a pointer to i, for Rule.ParamIdx.
func Index(i int) *int { return &i }

// ResourceName is the rule's resource (a pattern for regex rules).
func (r *Rule) ResourceName() string { return r.Resource }

// UnmarshalJSON decodes Java's JSON, with Java's defaults for absent
// fields (grade QPS, durationInSec 1). Unknown fields are ignored.
func (r *Rule) UnmarshalJSON(data []byte) error {
	type plain Rule
	p := plain{Grade: GradeQPS, DurationInSec: 1}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	p.zeroDuration = p.DurationInSec == 0 // the default was overwritten by 0
	*r = Rule(p)
	return nil
}

// Item is Java's ParamFlowItem: a value with its own limit. Object is the
// value as text, parsed by ClassType as Java's parseItemValue: "int",
// "long", "short", "byte" (or java.lang.Integer...) match a Go argument of
// any integer kind with that value; "double"/"float" a float32 or float64;
// "boolean" a bool; "char" a rune, a byte or a one-character string; blank
// or any other class a string. An item whose value does not parse is
// skipped, as Java skips it (LintRules says so).
type Item struct {
	Object    string `json:"object"`
	ClassType string `json:"classType,omitempty"`
	// Count is the value's own limit; 0 blocks the value.
	Count int64 `json:"count"`

	// Set by UnmarshalJSON when the JSON had no object or no count (Java's
	// null), which validation refuses. Zero in Go literals.
	noObject, noCount bool
}

// UnmarshalJSON accepts a JSON string, number or boolean as the object (a
// dashboard writes strings; hand-written files often do not).
func (it *Item) UnmarshalJSON(data []byte) error {
	var raw struct {
		Object    json.RawMessage `json:"object"`
		ClassType string          `json:"classType"`
		Count     *int64          `json:"count"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*it = Item{ClassType: raw.ClassType}
	switch obj := bytes.TrimSpace(raw.Object); {
	case len(obj) == 0 || string(obj) == "null":
		it.noObject = true
	case obj[0] == '"':
		if err := json.Unmarshal(obj, &it.Object); err != nil {
			return err
		}
	case obj[0] == '{' || obj[0] == '[':
		return errors.New("paramFlowItemList object must be a string, number or boolean, not " + string(obj))
	default:
		it.Object = string(obj)
	}
	if raw.Count == nil {
		it.noCount = true
	} else {
		it.Count = *raw.Count
	}
	return nil
}

// ClusterConfig is Java's ParamFlowClusterConfig.
type ClusterConfig struct {
	FlowID                  int64 `json:"flowId"`
	ThresholdType           int   `json:"thresholdType"`
	FallbackToLocalWhenFail bool  `json:"fallbackToLocalWhenFail"`
	// SampleCount and WindowIntervalMs: 0 in Go code means Java's
	// defaults, 10 and 1000; an explicit 0 in JSON is refused, as Java
	// refuses it.
	SampleCount      int `json:"sampleCount"`
	WindowIntervalMs int `json:"windowIntervalMs"`

	zeroWindow bool // JSON set sampleCount or windowIntervalMs to 0
}

// UnmarshalJSON applies Java's defaults to absent fields.
func (c *ClusterConfig) UnmarshalJSON(data []byte) error {
	type plain ClusterConfig
	p := plain{SampleCount: 10, WindowIntervalMs: 1000}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	p.zeroWindow = p.SampleCount == 0 || p.WindowIntervalMs == 0
	*c = ClusterConfig(p)
	return nil
}

// String describes the rule for logs, such as the block log's lines.
func (r *Rule) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "param flow rule {resource %q", r.Resource)
	if r.Regex {
		b.WriteString(" (regex)")
	}
	if r.ParamIdx != nil {
		fmt.Fprintf(&b, ", paramIdx %d", *r.ParamIdx)
	} else {
		b.WriteString(", paramIdx unset")
	}
	fmt.Fprintf(&b, ", grade %s, count %v", r.Grade, r.Count)
	if r.Grade == GradeQPS {
		fmt.Fprintf(&b, " per %d s, controlBehavior %s", max(r.DurationInSec, 1), r.ControlBehavior)
		if r.BurstCount > 0 {
			fmt.Fprintf(&b, ", burst %d", r.BurstCount)
		}
	}
	for _, it := range r.ParamFlowItemList {
		fmt.Fprintf(&b, ", item %q count %d", it.Object, it.Count)
	}
	if r.ClusterMode {
		b.WriteString(", cluster")
	}
	if r.DryRun {
		b.WriteString(", dry run")
	}
	b.WriteString("}")
	return b.String()
}
