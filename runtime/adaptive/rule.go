package adaptive

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The defaults of the fields a rule leaves at zero.
const (
	DefaultMinLimit         = 3     // Envoy's min_concurrency: the probe's limit
	DefaultMaxLimit         = 1000  // Envoy's max_concurrency_limit
	DefaultInitialLimit     = 20    // Netflix's Gradient2 initialLimit
	DefaultRTTTolerance     = 1.1   // latency over the minimum that is not queueing
	DefaultSampleIntervalMs = 100   // Envoy's concurrency_update_interval
	DefaultMinSamples       = 20    // effective samples behind each update
	DefaultProbeIntervalMs  = 60000 // Envoy's min_rtt_calc_interval
	DefaultProbeSamples     = 50    // Envoy's request_count
)

// Bounds of the fields, so that no rule can make the limiter spin, hold
// calls for long or overflow its sums.
const (
	MaxMaxLimit          = 1 << 20
	MaxRTTTolerance      = 10.0
	MinSampleIntervalMs  = 10
	MaxSampleIntervalMs  = 60000
	MaxSamples           = 100000
	MaxProbeIntervalMs   = 24 * 3600 * 1000
	MaxMaxQueueingTimeMs = 10000
)

// Rule is an adaptive concurrency rule: a limit on one resource's calls in
// flight that the limiter finds from their response times (see the package
// documentation). Zero fields take the Default* values; Rules returns the
// rules in force with them filled in. The JSON field names follow Java
// Sentinel's rules; Java Sentinel has no such rule.
type Rule struct {
	// Resource is the protected resource's name. Required; one rule per
	// resource.
	Resource string `json:"resource"`
	// MinLimit is the lowest the limit goes, and the limit while the
	// limiter probes the resource's unloaded response time. Default 3.
	MinLimit int `json:"minLimit"`
	// MaxLimit is the highest the limit goes. Default 1000.
	MaxLimit int `json:"maxLimit"`
	// InitialLimit is the limit before the limiter has learnt one, and
	// after a restart. Default 20, within [MinLimit, MaxLimit].
	InitialLimit int `json:"initialLimit"`
	// RTTTolerance is how much slower than the unloaded response time the
	// calls may run before the limit shrinks: the limit settles where
	// response times are RTTTolerance times the unloaded ones. Default
	// 1.1, for response times that vary little from call to call; 1.25 or
	// more where they vary as much as their mean, whose noise would
	// otherwise sink the limit. From 1 to 10.
	RTTTolerance float64 `json:"rttTolerance"`
	// SampleIntervalMs is how often the limit is recomputed, at the
	// earliest. Default 100.
	SampleIntervalMs int `json:"sampleIntervalMs"`
	// MinSamples is how many effective samples (see the package
	// documentation) a recomputation needs; an interval with fewer carries
	// them into the next. Default 20.
	MinSamples int `json:"minSamples"`
	// ProbeIntervalMs is how often the limiter drops the limit to MinLimit
	// to measure the unloaded response time again, less up to 10% jitter.
	// Default 60000.
	ProbeIntervalMs int `json:"probeIntervalMs"`
	// ProbeSamples is how many effective samples a probe takes. Default 50.
	ProbeSamples int `json:"probeSamples"`
	// MaxQueueingTimeMs is how long a call over the limit waits for a
	// slot before it is refused. 0, the default, refuses at once.
	MaxQueueingTimeMs int `json:"maxQueueingTimeMs"`
	// DryRun runs the limiter but admits every call: the calls it would
	// have refused are counted apart (runtime.Resource.DryRunBlockCount,
	// the block log's dry-run lines), and nothing waits.
	DryRun bool `json:"dryRun,omitempty"`
}

// UnmarshalJSON reads a rule with the defaults filled in for the fields it
// leaves out or sets to 0, so that a decoded rule reads as the rule in
// force.
func (r *Rule) UnmarshalJSON(data []byte) error {
	type plain Rule // without this method
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*r = Rule(p).withDefaults()
	return nil
}

// ResourceName is the rule's resource.
func (r *Rule) ResourceName() string { return r.Resource }

// String describes the rule for logs.
func (r *Rule) String() string {
	n := r.withDefaults()
	var b strings.Builder
	fmt.Fprintf(&b, "adaptive rule {resource %q, limit %d..%d from %d, rtt tolerance %g", n.Resource, n.MinLimit, n.MaxLimit, n.InitialLimit, n.RTTTolerance)
	if n.MaxQueueingTimeMs > 0 {
		fmt.Fprintf(&b, ", waits up to %dms", n.MaxQueueingTimeMs)
	}
	if n.DryRun {
		b.WriteString(", dry run")
	}
	b.WriteString("}")
	return b.String()
}

// withDefaults is r with its zero fields set to their defaults.
func (r Rule) withDefaults() Rule {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if r.MinLimit == 0 && r.MaxLimit > 0 {
		r.MinLimit = min(DefaultMinLimit, r.MaxLimit)
	}
	def(&r.MinLimit, DefaultMinLimit)
	def(&r.MaxLimit, max(DefaultMaxLimit, r.MinLimit))
	def(&r.InitialLimit, min(max(DefaultInitialLimit, r.MinLimit), r.MaxLimit))
	def(&r.SampleIntervalMs, DefaultSampleIntervalMs)
	def(&r.MinSamples, DefaultMinSamples)
	def(&r.ProbeIntervalMs, DefaultProbeIntervalMs)
	def(&r.ProbeSamples, DefaultProbeSamples)
	if r.RTTTolerance == 0 {
		r.RTTTolerance = DefaultRTTTolerance
	}
	return r
}
