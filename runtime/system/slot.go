package system

import (
	"strconv"

	"github.com/sentinelgen/sentinelgen/runtime"
)

func init() { runtime.RegisterSlot("SystemSlot", runtime.OrderSystem, slot{}) }

// Metric names the figure a system rule blocked on, as Java's
// SystemBlockException's limitType.
type Metric string

// The metrics, in the order they are checked.
const (
	MetricQPS    Metric = "qps"
	MetricThread Metric = "thread"
	MetricRT     Metric = "rt"
	MetricLoad   Metric = "load"
	MetricCPU    Metric = "cpu"
)

// Triggered is a system block's BlockError.TriggeredValue: the metric, its
// reading, and the threshold it exceeded.
type Triggered struct {
	Metric    Metric
	Value     float64
	Threshold float64
}

func (t Triggered) String() string {
	return string(t.Metric) + " " + strconv.FormatFloat(t.Value, 'g', 6, 64) + " > " + strconv.FormatFloat(t.Threshold, 'g', -1, 64)
}

type slot struct{}

// Bind applies the thresholds in force to every resource; a call's traffic
// type can be overridden per call, so the inbound test is made in Check.
func (slot) Bind(*runtime.Resource) runtime.Checker {
	t := inForce.Load()
	if t == nil || (!t.anySet() && t.dry == nil) {
		return nil
	}
	return checker{t}
}

type checker struct{ t *thresholds }

// Check is Java's SystemRuleManager.checkSystem, in its order, on the
// enforcing thresholds; a call they admit is then checked on the dry-run
// thresholds, which count a would-be block and admit it.
func (k checker) Check(c *runtime.Call) *runtime.BlockError {
	if c.Traffic() != runtime.Inbound {
		return nil
	}
	if r, tv, refused := k.t.check(c); refused {
		return c.Block(runtime.BlockSystem, r, tv).WithMessage(tv.String())
	}
	if d := k.t.dry; d != nil {
		if r, _, refused := d.check(c); refused {
			runtime.CountDryRunBlock(c, runtime.BlockSystem, r)
		}
	}
	return nil
}

// check reports whether t refuses inbound call c, the rule that set the
// threshold exceeded, and what was exceeded.
func (t *thresholds) check(c *runtime.Call) (*Rule, Triggered, bool) {
	n := runtime.InboundNode()
	now := c.StartMillis()
	if t.qpsRule != nil {
		if q := n.PassQPS(now); q+float64(c.BatchCount()) > t.qps {
			return t.qpsRule, Triggered{MetricQPS, q, t.qps}, true
		}
	}
	threads := n.Threads()
	if t.threadRule != nil && threads > t.thread {
		return t.threadRule, Triggered{MetricThread, float64(threads), float64(t.thread)}, true
	}
	if t.rtRule != nil {
		if rt := n.AvgRT(now); rt > float64(t.rt) {
			return t.rtRule, Triggered{MetricRT, rt, float64(t.rt)}, true
		}
	}
	if t.loadRule != nil {
		// Java's BBR test: a high load refuses calls only while more
		// calls are in flight than the inbound traffic's best recent
		// throughput times its fastest response time can explain.
		if l := CurrentLoad(); l > t.load && threads > 1 && float64(threads) > n.MaxSuccessQPS(now)*n.MinRT(now)/1000 {
			return t.loadRule, Triggered{MetricLoad, l, t.load}, true
		}
	}
	if t.cpuRule != nil {
		if u := CurrentCPUUsage(); u > t.cpu {
			return t.cpuRule, Triggered{MetricCPU, u, t.cpu}, true
		}
	}
	return nil, Triggered{}, false
}

func (checker) Exit(*runtime.Call) {}

// SkipsExit: system rules read the inbound node and take nothing.
func (checker) SkipsExit() bool { return true }
