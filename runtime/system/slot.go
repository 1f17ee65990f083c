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
	if t == nil || !t.anySet() {
		return nil
	}
	return checker{t}
}

type checker struct{ t *thresholds }

// Check is Java's SystemRuleManager.checkSystem, in its order.
func (k checker) Check(c *runtime.Call) *runtime.BlockError {
	if c.Traffic() != runtime.Inbound {
		return nil
	}
	t := k.t
	n := runtime.InboundNode()
	now := c.StartMillis()
	if t.qpsRule != nil {
		if q := n.PassQPS(now); q+float64(c.BatchCount()) > t.qps {
			return block(c, t.qpsRule, MetricQPS, q, t.qps)
		}
	}
	threads := n.Threads()
	if t.threadRule != nil && threads > t.thread {
		return block(c, t.threadRule, MetricThread, float64(threads), float64(t.thread))
	}
	if t.rtRule != nil {
		if rt := n.AvgRT(now); rt > float64(t.rt) {
			return block(c, t.rtRule, MetricRT, rt, float64(t.rt))
		}
	}
	if t.loadRule != nil {
		// Java's BBR test: a high load refuses calls only while more
		// calls are in flight than the inbound traffic's best recent
		// throughput times its fastest response time can explain.
		if l := CurrentLoad(); l > t.load && threads > 1 && float64(threads) > n.MaxSuccessQPS(now)*n.MinRT(now)/1000 {
			return block(c, t.loadRule, MetricLoad, l, t.load)
		}
	}
	if t.cpuRule != nil {
		if u := CurrentCPUUsage(); u > t.cpu {
			return block(c, t.cpuRule, MetricCPU, u, t.cpu)
		}
	}
	return nil
}

func (checker) Exit(*runtime.Call) {}

func block(c *runtime.Call, r *Rule, m Metric, v, threshold float64) *runtime.BlockError {
	tv := Triggered{Metric: m, Value: v, Threshold: threshold}
	return c.Block(runtime.BlockSystem, r, tv).WithMessage(tv.String())
}
