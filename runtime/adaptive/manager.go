package adaptive

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// ruleSet is one loaded rule set, immutable once published.
type ruleSet struct {
	rules    []Rule              // with defaults filled in, for Rules
	limiters map[string]*limiter // by resource
}

var (
	loadMu   sync.Mutex
	current  atomic.Pointer[ruleSet]
	property = runtime.NewProperty(LoadRules)
)

// LoadRules replaces the adaptive rules in force with rules, after checking
// every one of them (see ValidateRules). An invalid set is refused whole and
// the rules in force stay. Nil or empty clears.
//
// A resource that keeps a rule keeps its limiter: the calls in flight, the
// limit it learnt (brought within the new bounds) and the unloaded
// response time it measured.
func LoadRules(rules []Rule) error {
	norm, err := validate(rules)
	if err != nil {
		return err
	}
	loadMu.Lock()
	defer loadMu.Unlock()
	old := current.Load()
	s := &ruleSet{rules: norm, limiters: make(map[string]*limiter, len(norm))}
	for i := range s.rules {
		r := &s.rules[i]
		if old != nil && old.limiters[r.Resource] != nil {
			l := old.limiters[r.Resource]
			l.setRule(r)
			s.limiters[r.Resource] = l
			continue
		}
		s.limiters[r.Resource] = newLimiter(r)
	}
	current.Store(s)
	runtime.RulesChanged()
	return nil
}

// ValidateRules checks rules as LoadRules does and loads nothing. The
// error is a runtime.RuleErrors naming each bad rule's index, field and
// reason.
func ValidateRules(rules []Rule) error {
	_, err := validate(rules)
	return err
}

// Rules returns a copy of the rules in force, with their defaults filled
// in.
func Rules() []Rule {
	s := current.Load()
	if s == nil || len(s.rules) == 0 {
		return nil
	}
	return append([]Rule(nil), s.rules...)
}

// Property is the adaptive rules' property, which data sources update.
func Property() *runtime.Property[[]Rule] { return property }

// validate returns rules with their defaults filled in, or every problem.
func validate(rules []Rule) ([]Rule, error) {
	out := make([]Rule, len(rules))
	var errs runtime.RuleErrors
	first := map[string]int{}
	for i, given := range rules {
		bad := func(field, format string, args ...any) {
			errs = append(errs, &runtime.RuleError{Index: i, Resource: given.Resource, Field: field, Reason: fmt.Sprintf(format, args...)})
		}
		r := given.withDefaults()
		out[i] = r
		if strings.TrimSpace(r.Resource) == "" {
			bad("resource", "is required")
		} else if j, dup := first[r.Resource]; dup {
			bad("resource", "%q already has an adaptive rule (rule %d); a resource takes one", r.Resource, j)
		} else {
			first[r.Resource] = i
		}
		between := func(field string, v, lo, hi int, what string) bool {
			if v < lo || v > hi {
				bad(field, "%d is out of range: want %d to %d (%s), or 0 for the default", v, lo, hi, what)
				return false
			}
			return true
		}
		okMin := between("minLimit", r.MinLimit, 1, MaxMaxLimit, "calls in flight")
		okMax := between("maxLimit", r.MaxLimit, 1, MaxMaxLimit, "calls in flight")
		if okMin && okMax && r.MaxLimit < r.MinLimit {
			bad("maxLimit", "%d is below minLimit %d", r.MaxLimit, r.MinLimit)
		} else if okMin && okMax && (r.InitialLimit < r.MinLimit || r.InitialLimit > r.MaxLimit) {
			bad("initialLimit", "%d is out of range: want minLimit %d to maxLimit %d, or 0 for the default", r.InitialLimit, r.MinLimit, r.MaxLimit)
		}
		if t := r.RTTTolerance; math.IsNaN(t) || t < 1 || t > MaxRTTTolerance {
			bad("rttTolerance", "%g is out of range: want 1 to %g (a ratio of response times), or 0 for the default %g", t, MaxRTTTolerance, DefaultRTTTolerance)
		}
		between("sampleIntervalMs", r.SampleIntervalMs, MinSampleIntervalMs, MaxSampleIntervalMs, "ms")
		between("minSamples", r.MinSamples, 1, MaxSamples, "samples")
		if between("probeIntervalMs", r.ProbeIntervalMs, 1000, MaxProbeIntervalMs, "ms") && r.ProbeIntervalMs < 10*r.SampleIntervalMs {
			bad("probeIntervalMs", "%d is under 10 sample intervals (%d ms): the limiter would probe more than it limits", r.ProbeIntervalMs, 10*r.SampleIntervalMs)
		}
		between("probeSamples", r.ProbeSamples, 1, MaxSamples, "samples")
		if r.MaxQueueingTimeMs != 0 {
			between("maxQueueingTimeMs", r.MaxQueueingTimeMs, 0, MaxMaxQueueingTimeMs, "ms; 0 refuses at once")
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}
