package flow

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
)

// LimitApp values with a meaning of their own (Java's RuleConstant).
const (
	LimitAppDefault = "default"
	LimitAppOther   = "other"
)

// Java's defaults for the fields whose Go zero value is not theirs.
const (
	DefaultWarmUpPeriodSec   = 10  // FlowRule.warmUpPeriodSec
	DefaultMaxQueueingTimeMs = 500 // FlowRule.maxQueueingTimeMs
)

// Rule is a flow rule: Java's FlowRule, with its JSON field names. Unknown
// JSON fields (id, app, ip, port, gmtCreate, ...) are accepted and ignored.
type Rule struct {
	// Resource is the protected resource's name, or a pattern when Regex
	// is set. Required.
	Resource string `json:"resource"`
	// LimitApp says whose calls the rule limits: "default" (blank means
	// it) limits every caller; a specific origin limits that caller's calls
	// on that caller's statistics; "other" limits, each on its own
	// statistics, the origins that no other rule of the resource names.
	LimitApp string `json:"limitApp"`
	// Grade is what the rule counts. JSON without grade means GradeQPS,
	// Java's default; the Go zero value is GradeThread (Java's code 0).
	Grade Grade `json:"grade"`
	// Count is the threshold: admitted calls per second for GradeQPS,
	// calls in flight for GradeThread. 0 blocks every call. Must be >= 0
	// and finite.
	Count float64 `json:"count"`
	// Strategy chooses the statistics the rule reads. The zero value is
	// Direct, Java's default.
	Strategy Strategy `json:"strategy"`
	// RefResource is the related resource (Relate) or the context name
	// (Chain); required by both, ignored by Direct.
	RefResource string `json:"refResource"`
	// ControlBehavior is what a QPS rule does over the threshold. The zero
	// value is Reject, Java's default. Thread rules always reject.
	ControlBehavior ControlBehavior `json:"controlBehavior"`
	// WarmUpPeriodSec is the warm-up time of WarmUp and WarmUpThrottling.
	// Zero in Go code means Java's default, 10; an explicit 0 in JSON is
	// refused for those behaviors, as Java refuses it.
	WarmUpPeriodSec int `json:"warmUpPeriodSec"`
	// MaxQueueingTimeMs is the longest a Throttling or WarmUpThrottling
	// call waits for its turn. Zero in Go code means Java's default, 500;
	// an explicit 0 in JSON is refused for those behaviors.
	MaxQueueingTimeMs int `json:"maxQueueingTimeMs"`
	// ClusterMode makes the rule a cluster rule, counted by the
	// ClusterChecker (SetClusterChecker; package runtime/cluster on
	// Redis). Without one, a cluster rule is checked locally when its
	// ClusterConfig.FallbackToLocalWhenFail is set, and passes every call
	// otherwise: Java's behaviour when no token service is available.
	ClusterMode bool `json:"clusterMode"`
	// ClusterConfig is required when ClusterMode is set.
	ClusterConfig *ClusterConfig `json:"clusterConfig,omitempty"`
	// Regex makes Resource a regular expression that must match a whole
	// resource name (Java's Pattern.matches, in Go's RE2 syntax). Java
	// allows it only for Reject rules that are not in cluster mode.
	Regex bool `json:"regex"`
	// DryRun runs the rule fully (its statistics, gates and controllers)
	// but admits every call: the calls it would have blocked are counted
	// apart (runtime.Resource.DryRunBlockCount, the block log's dry-run
	// lines). A dry-run throttling rule never makes a call wait; it takes
	// the call's turn as if it had. Switching DryRun is a one-field edit
	// that keeps the rule's state. Java Sentinel ignores the field and
	// would enforce the rule.
	DryRun bool `json:"dryRun,omitempty"`

	// explicitZero records fields that JSON set to 0 where Go's 0 means
	// "Java's default", so that validation refuses them as Java does.
	// Always 0 for rules built in Go and for rules in force.
	explicitZero uint8
}

const (
	zeroWarmUpPeriodSec uint8 = 1 << iota
	zeroMaxQueueingTimeMs
)

// ResourceName is the rule's resource (a pattern for regex rules).
func (r *Rule) ResourceName() string { return r.Resource }

// String describes the rule for logs and block messages.
func (r *Rule) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "flow rule {resource %q", r.Resource)
	if r.Regex {
		b.WriteString(" (regex)")
	}
	fmt.Fprintf(&b, ", limitApp %q, grade %s, count %v, strategy %s", ruleutil.LimitApp(r.LimitApp), r.Grade, r.Count, r.Strategy)
	if r.Strategy != Direct {
		fmt.Fprintf(&b, " of %q", r.RefResource)
	}
	fmt.Fprintf(&b, ", controlBehavior %s", r.ControlBehavior)
	switch r.ControlBehavior {
	case WarmUp:
		fmt.Fprintf(&b, " over %ds", r.WarmUpPeriodSec)
	case Throttling:
		fmt.Fprintf(&b, " queueing up to %dms", r.MaxQueueingTimeMs)
	case WarmUpThrottling:
		fmt.Fprintf(&b, " over %ds queueing up to %dms", r.WarmUpPeriodSec, r.MaxQueueingTimeMs)
	}
	if r.ClusterMode {
		b.WriteString(", cluster mode")
	}
	if r.DryRun {
		b.WriteString(", dry run")
	}
	b.WriteString("}")
	return b.String()
}

// UnmarshalJSON fills Java's defaults for absent fields (limitApp
// "default", grade QPS, warmUpPeriodSec 10, maxQueueingTimeMs 500) and
// accepts unknown fields.
func (r *Rule) UnmarshalJSON(data []byte) error {
	type plain Rule
	p := plain{
		LimitApp:          ruleutil.LimitAppDefault,
		Grade:             GradeQPS,
		WarmUpPeriodSec:   DefaultWarmUpPeriodSec,
		MaxQueueingTimeMs: DefaultMaxQueueingTimeMs,
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	p.explicitZero = 0
	if p.WarmUpPeriodSec == 0 {
		p.explicitZero |= zeroWarmUpPeriodSec
	}
	if p.MaxQueueingTimeMs == 0 {
		p.explicitZero |= zeroMaxQueueingTimeMs
	}
	*r = Rule(p)
	return nil
}

// normalized returns r as it is in force: Java's defaults in place of Go's
// zero values, and its own copy of the cluster configuration.
func (r Rule) normalized() Rule {
	r.LimitApp = ruleutil.LimitApp(r.LimitApp)
	if r.WarmUpPeriodSec == 0 {
		r.WarmUpPeriodSec = DefaultWarmUpPeriodSec
	}
	if r.MaxQueueingTimeMs == 0 {
		r.MaxQueueingTimeMs = DefaultMaxQueueingTimeMs
	}
	if r.ClusterConfig != nil {
		cc := r.ClusterConfig.normalized()
		r.ClusterConfig = &cc
	}
	r.explicitZero = 0
	return r
}

// Java's defaults of ClusterFlowConfig.
const (
	DefaultClusterSampleCount      = 10   // ClusterRuleConstant.DEFAULT_CLUSTER_SAMPLE_COUNT
	DefaultClusterWindowIntervalMs = 1000 // RuleConstant.DEFAULT_WINDOW_INTERVAL_MS
	DefaultResourceTimeoutMs       = 2000 // ClusterFlowConfig.resourceTimeout
	DefaultClientOfflineTimeMs     = 2000 // ClusterFlowConfig.clientOfflineTime
)

// ClusterConfig is Java's ClusterFlowConfig: how a cluster rule is counted
// by the token server (here the ClusterChecker, e.g. runtime/cluster's
// Redis window).
type ClusterConfig struct {
	// FlowID identifies the rule on the token server; must be > 0.
	FlowID int64 `json:"flowId"`
	// ThresholdType is 0 (FLOW_THRESHOLD_AVG_LOCAL: count per client) or
	// 1 (FLOW_THRESHOLD_GLOBAL: count for the whole cluster).
	ThresholdType int `json:"thresholdType"`
	// FallbackToLocalWhenFail checks the rule locally when the token
	// server cannot be reached. JSON without it means true, Java's
	// default; the Go zero value is false: set it in Go code.
	FallbackToLocalWhenFail bool `json:"fallbackToLocalWhenFail"`
	// Strategy is the cluster strategy; only 0 (FLOW_CLUSTER_STRATEGY_NORMAL)
	// is valid for QPS rules, as in Java.
	Strategy int `json:"strategy"`
	// SampleCount and WindowIntervalMs shape the server's window;
	// WindowIntervalMs must be a multiple of SampleCount. Zero in Go code
	// means Java's defaults, 10 and 1000; an explicit 0 in JSON is refused.
	SampleCount      int `json:"sampleCount"`
	WindowIntervalMs int `json:"windowIntervalMs"`
	// ResourceTimeout and ClientOfflineTime (ms) govern thread-grade
	// cluster rules; zero in Go code means Java's 2000.
	ResourceTimeout         int64 `json:"resourceTimeout"`
	ResourceTimeoutStrategy int   `json:"resourceTimeoutStrategy"`
	AcquireRefuseStrategy   int   `json:"acquireRefuseStrategy"`
	ClientOfflineTime       int64 `json:"clientOfflineTime"`

	explicitZero uint8
}

const (
	zeroSampleCount uint8 = 1 << iota
	zeroWindowIntervalMs
	zeroResourceTimeout
	zeroClientOfflineTime
)

// UnmarshalJSON fills Java's defaults for absent fields
// (fallbackToLocalWhenFail true, sampleCount 10, windowIntervalMs 1000,
// resourceTimeout 2000, clientOfflineTime 2000).
func (c *ClusterConfig) UnmarshalJSON(data []byte) error {
	type plain ClusterConfig
	p := plain{
		FallbackToLocalWhenFail: true,
		SampleCount:             DefaultClusterSampleCount,
		WindowIntervalMs:        DefaultClusterWindowIntervalMs,
		ResourceTimeout:         DefaultResourceTimeoutMs,
		ClientOfflineTime:       DefaultClientOfflineTimeMs,
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	p.explicitZero = 0
	if p.SampleCount == 0 {
		p.explicitZero |= zeroSampleCount
	}
	if p.WindowIntervalMs == 0 {
		p.explicitZero |= zeroWindowIntervalMs
	}
	if p.ResourceTimeout == 0 {
		p.explicitZero |= zeroResourceTimeout
	}
	if p.ClientOfflineTime == 0 {
		p.explicitZero |= zeroClientOfflineTime
	}
	*c = ClusterConfig(p)
	return nil
}

func (c ClusterConfig) normalized() ClusterConfig {
	if c.SampleCount == 0 {
		c.SampleCount = DefaultClusterSampleCount
	}
	if c.WindowIntervalMs == 0 {
		c.WindowIntervalMs = DefaultClusterWindowIntervalMs
	}
	if c.ResourceTimeout == 0 {
		c.ResourceTimeout = DefaultResourceTimeoutMs
	}
	if c.ClientOfflineTime == 0 {
		c.ClientOfflineTime = DefaultClientOfflineTimeMs
	}
	c.explicitZero = 0
	return c
}

// ruleKey identifies a rule by value, its cluster configuration included:
// equal rules are loaded once, and a rule that is still in force after a
// reload keeps its controllers' state. DryRun is left out, so that
// switching a rule between dry run and enforcing keeps its state.
type ruleKey struct {
	rule       Rule
	cluster    ClusterConfig
	hasCluster bool
	coldFactor int
}

func keyOf(r *Rule, coldFactor int) ruleKey {
	k := ruleKey{rule: *r}
	k.rule.DryRun = false
	if r.Grade == GradeQPS && (r.ControlBehavior == WarmUp || r.ControlBehavior == WarmUpThrottling) {
		k.coldFactor = coldFactor // only warm-up state depends on it
	}
	k.rule.ClusterConfig = nil
	if r.ClusterConfig != nil {
		k.cluster, k.hasCluster = *r.ClusterConfig, true
	}
	return k
}
