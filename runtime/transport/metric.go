package transport

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
	"github.com/sentinelgen/sentinelgen/runtime/system"
)

// MetricNode is one resource's counts in one second, Java's MetricNode:
// what the metric command answers and the metric log keeps, one line
// each.
type metricNode struct {
	Timestamp    int64 // Unix ms, the second's start
	Resource     string
	Pass         int64
	Block        int64
	Success      int64
	Exception    int64
	RT           int64 // mean response time of the second's completed calls, ms
	OccupiedPass int64 // prioritized calls that borrowed from this second
	Concurrency  int64 // Java never sets it; always 0
	// Classification is the resource type (runtime.ResourceType: 0 common,
	// 1 web, 2 rpc, 3 gateway, 4 db, ...).
	Classification int
}

// lineName is the resource name as a line carries it: '|' separates
// fields, so Java writes it as '_'; line breaks would split the line, so
// they become '_' too.
func lineName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '|' || r == '\n' || r == '\r' {
			return '_'
		}
		return r
	}, s)
}

// ThinString is Java's MetricNode.toThinString, the metric command's
// line: timestamp|resource|pass|block|success|exception|rt|occupiedPass|concurrency|classification.
func (n metricNode) ThinString() string {
	var b strings.Builder
	n.appendFields(&b)
	return b.String()
}

// FatString is Java's MetricNode.toFatString without its line break, the
// metric log's line: the thin line with the local date and time after the
// timestamp.
func (n metricNode) FatString() string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(n.Timestamp, 10))
	b.WriteByte('|')
	b.WriteString(time.UnixMilli(n.Timestamp).Format(time.DateTime))
	b.WriteByte('|')
	thin := n.ThinString()
	_, rest, _ := strings.Cut(thin, "|")
	b.WriteString(rest)
	return b.String()
}

func (n metricNode) appendFields(b *strings.Builder) {
	b.WriteString(strconv.FormatInt(n.Timestamp, 10))
	b.WriteByte('|')
	b.WriteString(lineName(n.Resource))
	for _, v := range []int64{n.Pass, n.Block, n.Success, n.Exception, n.RT, n.OccupiedPass, n.Concurrency, int64(n.Classification)} {
		b.WriteByte('|')
		b.WriteString(strconv.FormatInt(v, 10))
	}
}

// newMetricNode is Java's ArrayMetric.fromBucket for one second: RT is the
// mean over the completed calls, or the raw sum when none completed.
func newMetricNode(name string, class int, c stat.Counts) metricNode {
	rt := c.RT
	if c.Success != 0 {
		rt = c.RT / c.Success
	}
	return metricNode{Timestamp: c.Start, Resource: name, Pass: c.Pass, Block: c.Block, Success: c.Success,
		Exception: c.Exception, RT: rt, Classification: class}
}

// metricNodes returns the per-second counts of every resource, and of all
// inbound calls as __total_inbound_traffic__, for the whole seconds from
// from to to (Unix ms, both inclusive, read as their seconds) among the 60
// before now's second, which the runtime keeps (stat.Node.WholeSeconds). Seconds
// without a call are left out, as Java leaves them out. The result is
// ordered by time, then by resource name, the inbound total last.
func metricNodes(now, from, to int64) []metricNode {
	cur := now - now%1000
	from -= from % 1000
	// One list per second of the minute, filled in resource order, so the
	// result is ordered by concatenating them.
	first := max(from, cur-stat.MinuteSampleCount*1000)
	var bySecond [stat.MinuteSampleCount][]metricNode
	add := func(name string, class int, h []stat.Counts) {
		for _, c := range h {
			if c.Start < first || c.Start > to || c.Start >= cur {
				continue
			}
			if c.Pass == 0 && c.Block == 0 && c.Success == 0 && c.Exception == 0 && c.RT == 0 {
				continue
			}
			i := (c.Start - first) / 1000
			bySecond[i] = append(bySecond[i], newMetricNode(name, class, c))
		}
	}
	for _, r := range runtime.Resources() {
		if cn := r.ClusterNode(); cn != nil {
			add(r.Name(), int(r.Spec().Type), cn.WholeSeconds(now, from))
		}
	}
	add(TotalInboundName, 0, runtime.InboundNode().WholeSeconds(now, from))
	n := 0
	for _, l := range bySecond {
		n += len(l)
	}
	out := make([]metricNode, 0, n)
	for _, l := range bySecond {
		out = append(out, l...)
	}
	return out
}

// Java's SendMetricCommandHandler limits.
const (
	defaultMaxLines = 6000
	maxMaxLines     = 12000
)

// metric is Java's SendMetricCommandHandler, reading the runtime's minute
// of history instead of the metric log: lines in
// MetricNode.toThinString's format, one per resource per second with
// calls.
//
//   - startTime is required (without it the answer is empty, as in Java);
//   - with endTime, every second from startTime's to endTime's, of the
//     resource named identity when given;
//   - without endTime, the seconds from startTime's until maxLines lines
//     (6000 by default, at most 12000), finishing the last second.
//
// Without identity, the CPU usage and load average are added for the
// current second as __cpu_usage__ and __system_load__ (value × 10000 as
// the pass count), as Java adds them, when the system rules read them.
func metric(p params) (string, error) {
	st := strings.TrimSpace(p["startTime"])
	if st == "" {
		return "", nil
	}
	start, err := strconv.ParseInt(st, 10, 64)
	if err != nil {
		return "", fmt.Errorf("startTime %q is not a Unix time in milliseconds", printable(st))
	}
	now := runtime.NowMillis()
	identity := p["identity"]
	var nodes []metricNode
	if et := strings.TrimSpace(p["endTime"]); et != "" {
		end, err := strconv.ParseInt(et, 10, 64)
		if err != nil {
			return "", fmt.Errorf("endTime %q is not a Unix time in milliseconds", printable(et))
		}
		end = end - end%1000
		for _, n := range metricNodes(now, start, end) {
			// Java matches identity against the name as the line has it.
			if identity == "" || n.Resource == identity || lineName(n.Resource) == identity {
				nodes = append(nodes, n)
			}
		}
	} else {
		maxLines := defaultMaxLines
		if ml := strings.TrimSpace(p["maxLines"]); ml != "" {
			if maxLines, err = strconv.Atoi(ml); err != nil {
				return "", fmt.Errorf("maxLines %q is not a number", printable(ml))
			}
		}
		maxLines = min(maxLines, maxMaxLines)
		all := metricNodes(now, start, now)
		for i, n := range all {
			if i >= maxLines && (i == 0 || all[i-1].Timestamp/1000 != n.Timestamp/1000) {
				break
			}
			nodes = append(nodes, n)
		}
	}
	if identity == "" {
		sec := now - now%1000
		if load := system.CurrentLoad(); load > 0 {
			nodes = append(nodes, metricNode{Timestamp: sec, Resource: "__system_load__", Pass: int64(load * 10000)})
		}
		if cpu := system.CurrentCPUUsage(); cpu > 0 {
			nodes = append(nodes, metricNode{Timestamp: sec, Resource: "__cpu_usage__", Pass: int64(cpu * 10000)})
		}
	}
	var b strings.Builder
	for _, n := range nodes {
		n.appendFields(&b)
		b.WriteByte('\n')
	}
	return b.String(), nil
}
