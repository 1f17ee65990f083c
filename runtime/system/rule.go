package system

import (
	"encoding/json"
	"math"
	"strconv"
)

// Unset marks a threshold as not set: any negative value does, as in Java.
const Unset = -1

// Rule is Java's SystemRule: thresholds on the whole process's inbound
// traffic and on the machine. A negative field is not set.
//
// The zero value problem: Java's fields default to -1 (unset), Go's to 0,
// and 0 is itself a valid, very strict threshold (qps 0 refuses every
// inbound call, avgRt 0 refuses once any inbound call took 1 ms). So:
//
//   - JSON: a field absent from the JSON is unset (Java's -1); an explicit
//     0 is a threshold of 0, as in Java.
//   - Go code: a field left at 0 in a Rule literal is a threshold of 0.
//     Start from NewRule (every field Unset) and set the thresholds you
//     want: r := system.NewRule(); r.QPS = 1000.
type Rule struct {
	// HighestSystemLoad is the one-minute load average above which inbound
	// calls are refused while the BBR test fails (see the package doc).
	// Linux only.
	HighestSystemLoad float64 `json:"highestSystemLoad"`
	// HighestCPUUsage is the CPU usage, 0..1, above which inbound calls are
	// refused: the container's usage of its CPU limit when the process runs
	// under a cgroup limit, else the machine's. Linux only.
	HighestCPUUsage float64 `json:"highestCpuUsage"`
	// QPS is the most inbound calls admitted per second.
	QPS float64 `json:"qps"`
	// AvgRT is the mean response time in ms of inbound calls above which
	// inbound calls are refused.
	AvgRT int64 `json:"avgRt"`
	// MaxThread is the most inbound calls in flight: a call is refused while
	// more than MaxThread are in flight (Java compares with >, so up to
	// MaxThread+1 can be in flight at once).
	MaxThread int64 `json:"maxThread"`
	// DryRun checks the rule's thresholds, apart from those of the
	// enforcing rules, on every inbound call the enforcing rules admit,
	// but admits the call: the calls it would have refused are counted
	// apart (runtime.Resource.DryRunBlockCount, the block log's dry-run
	// lines). Java Sentinel ignores the field and would enforce the rule.
	DryRun bool `json:"dryRun,omitempty"`
}

// NewRule returns a rule with every threshold Unset (Java's new SystemRule()).
func NewRule() Rule {
	return Rule{HighestSystemLoad: Unset, HighestCPUUsage: Unset, QPS: Unset, AvgRT: Unset, MaxThread: Unset}
}

// ResourceName is empty: system rules apply to every inbound call.
func (r *Rule) ResourceName() string { return "" }

// UnmarshalJSON decodes Java's JSON, leaving absent fields Unset. Unknown
// fields (id, app, ip, port, gmtCreate... from dashboard exports) are
// ignored.
func (r *Rule) UnmarshalJSON(data []byte) error {
	type plain Rule
	p := plain(NewRule())
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*r = Rule(p)
	return nil
}

// String shows the thresholds that are set.
func (r Rule) String() string {
	s := "SystemRule{"
	sep := ""
	add := func(name, v string) {
		s += sep + name + "=" + v
		sep = " "
	}
	if r.HighestSystemLoad >= 0 {
		add("highestSystemLoad", fmtFloat(r.HighestSystemLoad))
	}
	if r.HighestCPUUsage >= 0 {
		add("highestCpuUsage", fmtFloat(r.HighestCPUUsage))
	}
	if r.QPS >= 0 {
		add("qps", fmtFloat(r.QPS))
	}
	if r.AvgRT >= 0 {
		add("avgRt", strconv.FormatInt(r.AvgRT, 10))
	}
	if r.MaxThread >= 0 {
		add("maxThread", strconv.FormatInt(r.MaxThread, 10))
	}
	if r.DryRun {
		add("dryRun", "true")
	}
	return s + "}"
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
