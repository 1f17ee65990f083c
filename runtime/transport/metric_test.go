package transport_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// traffic drives seconds seconds of the hand clock on resource: 8 calls a
// second against a QPS limit of 5, so 5 pass and 3 are blocked, each
// admitted call taking 10 to 19 ms. It leaves the clock on the next
// whole second.
func traffic(t *testing.T, clk *clocktest.Clock, resource string, seconds int) {
	t.Helper()
	runtime.Declare(runtime.ResourceSpec{Name: resource, Traffic: runtime.Inbound, Type: runtime.Web})
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: resource, Grade: flow.GradeQPS, Count: 5}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	for s := range seconds {
		for i := range 8 {
			if e, b := runtime.Entry(context.Background(), resource); b == nil {
				clk.Advance(time.Duration(10+(s+i)%10) * time.Millisecond)
				e.Exit()
			}
		}
		clk.Advance(time.Second - time.Duration(clk.Millis()%1000)*time.Millisecond)
	}
}

// metricNode is what the dashboard's MetricNode.fromThinString reads.
type metricNode struct {
	timestamp                                           int64
	resource                                            string
	pass, block, success, exception, rt, occupied, conc int64
	classification                                      int64
}

// fromThinString parses a line as Java's MetricNode.fromThinString: split
// on '|', Long.parseLong for the counts, the later fields optional.
func fromThinString(t *testing.T, line string) metricNode {
	t.Helper()
	f := strings.Split(line, "|")
	require.GreaterOrEqual(t, len(f), 7, "line %q", line)
	require.LessOrEqual(t, len(f), 10, "line %q", line)
	num := func(i int) int64 {
		if i >= len(f) {
			return 0
		}
		n, err := strconv.ParseInt(f[i], 10, 64)
		require.NoError(t, err, "field %d of %q", i, line)
		return n
	}
	return metricNode{num(0), f[1], num(2), num(3), num(4), num(5), num(6), num(7), num(8), num(9)}
}

// The dashboard's MetricFetcher asks each machine for
// metric?startTime=...&endTime=... of whole seconds over 2 s ago, and sums
// each line's counts per resource and second. Those sums are the traffic
// sent.
func TestMetricLinesSumToTheTrafficSent(t *testing.T) {
	clk := clocktest.Install(t)
	t0 := clk.Millis()
	res := "metric.order"
	traffic(t, clk, res, 10)
	clk.Advance(500 * time.Millisecond) // into the 11th second, which is not over
	srv := start(t, transport.Config{})

	code, body := get(t, srv, "metric", url.Values{
		"startTime": {strconv.FormatInt(t0, 10)},
		"endTime":   {strconv.FormatInt(t0+10_000, 10)},
		"refetch":   {"false"},
	})
	require.Equal(t, http.StatusOK, code, body)
	require.True(t, strings.HasSuffix(body, "\n"))
	var pass, block, success, lines int64
	var inboundPass int64
	seen := map[int64]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		n := fromThinString(t, line)
		assert.Zero(t, n.timestamp%1000, "whole seconds")
		assert.Less(t, n.timestamp, t0+10_000, "only seconds that are over")
		switch n.resource {
		case res:
			lines++
			pass += n.pass
			block += n.block
			success += n.success
			assert.False(t, seen[n.timestamp], "one line per resource per second")
			seen[n.timestamp] = true
			assert.EqualValues(t, 5, n.pass)
			assert.EqualValues(t, 3, n.block)
			assert.GreaterOrEqual(t, n.rt, int64(10), "mean RT of the second")
			assert.LessOrEqual(t, n.rt, int64(19))
			assert.EqualValues(t, 1, n.classification, "a web resource")
		case transport.TotalInboundName:
			inboundPass += n.pass
		}
	}
	assert.EqualValues(t, 10, lines)
	assert.EqualValues(t, 50, pass, "5 a second for 10 s")
	assert.EqualValues(t, 30, block)
	assert.EqualValues(t, 50, success)
	assert.EqualValues(t, 50, inboundPass, "the inbound total, which the dashboard leaves out")

	// identity picks one resource.
	_, body = get(t, srv, "metric", url.Values{
		"startTime": {strconv.FormatInt(t0+2000, 10)}, "endTime": {strconv.FormatInt(t0+4999, 10)}, "identity": {res},
	})
	got := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	require.Len(t, got, 3, "seconds 2, 3 and 4: %s", body)
	for i, line := range got {
		n := fromThinString(t, line)
		assert.Equal(t, res, n.resource)
		assert.Equal(t, t0+int64(2000+1000*i), n.timestamp)
	}

	// Without endTime, maxLines lines, finishing the last second.
	_, body = get(t, srv, "metric", url.Values{"startTime": {strconv.FormatInt(t0, 10)}, "maxLines": {"3"}})
	var kept []metricNode
	for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if n := fromThinString(t, line); !strings.HasPrefix(n.resource, "__") || n.resource == transport.TotalInboundName {
			kept = append(kept, n)
		}
	}
	require.Len(t, kept, 4, "two lines a second: 3 lines run into the second second, which is finished")
	assert.Equal(t, t0+1000, kept[3].timestamp)
}

func TestMetricParameters(t *testing.T) {
	srv := start(t, transport.Config{})
	code, body := get(t, srv, "metric", nil)
	assert.Equal(t, http.StatusOK, code)
	assert.Empty(t, body, "no startTime: nothing, as Java")

	for _, p := range []url.Values{
		{"startTime": {"yesterday"}},
		{"startTime": {"1"}, "endTime": {"soon"}},
		{"startTime": {"1"}, "maxLines": {"many"}},
	} {
		code, body := get(t, srv, "metric", p)
		assert.Equal(t, http.StatusBadRequest, code, p.Encode())
		assert.Contains(t, body, "is not a")
	}
}

// '|' separates a line's fields: Java writes it as '_' in a name, and line
// breaks, which would split the line, go the same way.
func TestMetricNodeLines(t *testing.T) {
	n := transport.MetricNode{Timestamp: 1700000000000, Resource: "GET:/a|b\nc", Pass: 5, Block: 3, Success: 5,
		Exception: 1, RT: 12, Classification: 1}
	assert.Equal(t, "1700000000000|GET:/a_b_c|5|3|5|1|12|0|0|1", n.ThinString())
	fat := n.FatString()
	assert.True(t, strings.HasPrefix(fat, "1700000000000|"+time.UnixMilli(1700000000000).Format(time.DateTime)+"|GET:/a_b_c|5|3|"), fat)
	assert.Len(t, strings.Split(fat, "|"), 11, "Java's fromFatString reads 11 fields")
}

// The whole minute before now is served, the oldest second included.
func TestMetricServesTheLastSixtySeconds(t *testing.T) {
	clk := clocktest.Install(t)
	t0 := clk.Millis()
	res := "metric.minute"
	traffic(t, clk, res, 61)
	clk.Advance(300 * time.Millisecond)
	srv := start(t, transport.Config{})
	_, body := get(t, srv, "metric", url.Values{
		"startTime": {strconv.FormatInt(t0, 10)}, "endTime": {strconv.FormatInt(clk.Millis(), 10)}, "identity": {res},
	})
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	require.Len(t, lines, 60, "seconds 1 to 60 of the 61")
	assert.Equal(t, t0+1000, fromThinString(t, lines[0]).timestamp)
	assert.Equal(t, t0+60_000, fromThinString(t, lines[59]).timestamp)
}

// Java's metric line carries the ClusterNode's resource type, the first
// call's: 1 web, 2 RPC, 4 DB. A resource typed per call (an adapter's,
// never declared) is classified the same way.
func TestMetricLinesCarryTheFirstCallsClassification(t *testing.T) {
	clk := clocktest.Install(t)
	t0 := clk.Millis()
	types := map[string]runtime.ResourceType{"metric.web": runtime.Web, "metric.rpc": runtime.RPC, "metric.db": runtime.ResourceType(4)}
	for name, typ := range types {
		e, b := runtime.Entry(context.Background(), name, runtime.WithTrafficType(runtime.Inbound), runtime.WithResourceType(typ))
		require.Nil(t, b)
		e.Exit()
		e, b = runtime.Entry(context.Background(), name) // a later call says nothing of its type
		require.Nil(t, b)
		e.Exit()
	}
	clk.Advance(2 * time.Second)
	srv := start(t, transport.Config{})
	_, body := get(t, srv, "metric", url.Values{
		"startTime": {strconv.FormatInt(t0-t0%1000, 10)},
		"endTime":   {strconv.FormatInt(t0+2000, 10)},
	})
	got := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if n := fromThinString(t, line); types[n.resource] != 0 {
			got[n.resource] = n.classification
		}
	}
	assert.Equal(t, map[string]int64{"metric.web": 1, "metric.rpc": 2, "metric.db": 4}, got)
}
