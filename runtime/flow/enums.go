package flow

import (
	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
)

// Grade is what a rule counts (Java's FlowRule.grade).
type Grade int

const (
	// GradeThread counts the calls in flight (FLOW_GRADE_THREAD = 0). It is
	// the zero value: Go code that means QPS must say GradeQPS.
	GradeThread Grade = 0
	// GradeQPS counts the calls admitted in the last second
	// (FLOW_GRADE_QPS = 1), Java's default and JSON's when grade is absent.
	GradeQPS Grade = 1
)

var gradeEnum = ruleutil.Enum{Type: "Grade", Names: map[int][]string{
	0: {"Thread", "Concurrency", "FLOW_GRADE_THREAD"},
	1: {"QPS", "FLOW_GRADE_QPS"},
}}

func (g Grade) String() string { return gradeEnum.String(int(g)) }

// MarshalJSON writes Java's numeric code.
func (g Grade) MarshalJSON() ([]byte, error) { return gradeEnum.Marshal(int(g)) }

// UnmarshalJSON accepts Java's code (0, 1) or a name ("Thread", "QPS").
func (g *Grade) UnmarshalJSON(data []byte) error { return gradeEnum.Unmarshal(data, (*int)(g)) }

// Strategy chooses the node a rule reads (Java's FlowRule.strategy, the
// "flow control mode").
type Strategy int

const (
	// Direct reads the resource's own statistics (STRATEGY_DIRECT = 0).
	Direct Strategy = 0
	// Relate reads the ClusterNode of RefResource (STRATEGY_RELATE = 1):
	// the resource is limited when the related one is busy.
	Relate Strategy = 1
	// Chain applies only to calls entered in the context named RefResource
	// and reads the resource's node in that context (STRATEGY_CHAIN = 2).
	Chain Strategy = 2
)

var strategyEnum = ruleutil.Enum{Type: "Strategy", Names: map[int][]string{
	0: {"Direct", "STRATEGY_DIRECT"},
	1: {"Relate", "STRATEGY_RELATE"},
	2: {"Chain", "STRATEGY_CHAIN"},
}, Open: true}

func (s Strategy) String() string { return strategyEnum.String(int(s)) }

// MarshalJSON writes Java's numeric code.
func (s Strategy) MarshalJSON() ([]byte, error) { return strategyEnum.Marshal(int(s)) }

// UnmarshalJSON accepts Java's code (0..2) or a name ("Direct", "Relate",
// "Chain"). Another whole number loads as Java loads it (see LintRules).
func (s *Strategy) UnmarshalJSON(data []byte) error { return strategyEnum.Unmarshal(data, (*int)(s)) }

// ControlBehavior is what a QPS rule does with calls over its threshold
// (Java's FlowRule.controlBehavior, the "flow control effect"). Thread-grade
// rules always reject, as in Java.
type ControlBehavior int

const (
	// Reject refuses calls over count at once (CONTROL_BEHAVIOR_DEFAULT = 0,
	// Java's DefaultController).
	Reject ControlBehavior = 0
	// WarmUp starts at count/coldFactor and rises to count over
	// WarmUpPeriodSec (CONTROL_BEHAVIOR_WARM_UP = 1, WarmUpController).
	WarmUp ControlBehavior = 1
	// Throttling spaces calls 1/count seconds apart, queueing each for at
	// most MaxQueueingTimeMs (CONTROL_BEHAVIOR_RATE_LIMITER = 2,
	// ThrottlingController).
	Throttling ControlBehavior = 2
	// WarmUpThrottling spaces calls at the warm-up rate
	// (CONTROL_BEHAVIOR_WARM_UP_RATE_LIMITER = 3,
	// WarmUpRateLimiterController).
	WarmUpThrottling ControlBehavior = 3
)

var behaviorEnum = ruleutil.Enum{Type: "ControlBehavior", Names: map[int][]string{
	0: {"Reject", "Default", "FastFail", "CONTROL_BEHAVIOR_DEFAULT"},
	1: {"WarmUp", "CONTROL_BEHAVIOR_WARM_UP"},
	2: {"Throttling", "RateLimiter", "Queueing", "CONTROL_BEHAVIOR_RATE_LIMITER"},
	3: {"WarmUpThrottling", "WarmUpRateLimiter", "CONTROL_BEHAVIOR_WARM_UP_RATE_LIMITER"},
}, Open: true}

func (b ControlBehavior) String() string { return behaviorEnum.String(int(b)) }

// MarshalJSON writes Java's numeric code.
func (b ControlBehavior) MarshalJSON() ([]byte, error) { return behaviorEnum.Marshal(int(b)) }

// UnmarshalJSON accepts Java's code (0..3) or a name ("Reject", "WarmUp",
// "Throttling", "WarmUpThrottling", "RateLimiter", ...). Another whole
// number loads as Java loads it (see LintRules).
func (b *ControlBehavior) UnmarshalJSON(data []byte) error {
	return behaviorEnum.Unmarshal(data, (*int)(b))
}
