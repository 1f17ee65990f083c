package transport_test

import (
	"bufio"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// fromFatString parses a metric log line as Java's
// MetricNode.fromFatString.
func fromFatString(t *testing.T, line string) metricNode {
	t.Helper()
	f := strings.Split(line, "|")
	require.Len(t, f, 11, line)
	ts, err := strconv.ParseInt(f[0], 10, 64)
	require.NoError(t, err)
	_, err = time.ParseInLocation(time.DateTime, f[1], time.Local)
	require.NoError(t, err, "yyyy-MM-dd HH:mm:ss")
	thin := append([]string{f[0]}, f[2:]...)
	n := fromThinString(t, strings.Join(thin, "|"))
	n.timestamp = ts
	return n
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	require.NoError(t, sc.Err())
	return out
}

// Java's metric log: one line per resource per second, and an index of
// (second, offset) pairs that MetricSearcher seeks with.
func TestMetricLogIsJavasFormat(t *testing.T) {
	clk := clocktest.Install(t)
	t0 := clk.Millis()
	res := "metriclog.order"
	traffic(t, clk, res, 5)
	dir := t.TempDir()
	ml, err := transport.OpenMetricLog("my.app", transport.MetricLogConfig{Dir: dir})
	require.NoError(t, err)
	defer ml.Close()
	require.NoError(t, ml.Write(clk.Millis()))
	require.NoError(t, ml.Write(clk.Millis()), "a second write adds nothing already written")

	day := time.UnixMilli(t0).Format(time.DateOnly)
	path := filepath.Join(dir, "my-app-metrics.log."+day)
	lines := readLines(t, path)
	var pass, block int64
	var seconds []int64
	for _, l := range lines {
		n := fromFatString(t, l)
		if n.resource == res {
			pass += n.pass
			block += n.block
			seconds = append(seconds, n.timestamp)
		}
	}
	assert.EqualValues(t, 25, pass)
	assert.EqualValues(t, 15, block)
	assert.Equal(t, []int64{t0, t0 + 1000, t0 + 2000, t0 + 3000, t0 + 4000}, seconds)

	idx, err := os.ReadFile(path + ".idx")
	require.NoError(t, err)
	require.Len(t, idx, 5*16, "one entry per second")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	for i := range 5 {
		sec := int64(binary.BigEndian.Uint64(idx[i*16:]))
		off := int64(binary.BigEndian.Uint64(idx[i*16+8:]))
		assert.Equal(t, t0/1000+int64(i), sec)
		line, _, _ := strings.Cut(string(data[off:]), "\n")
		assert.True(t, strings.HasPrefix(line, strconv.FormatInt(sec*1000, 10)+"|"), "the offset starts the second's first line")
	}

	// More traffic is appended to the same file.
	traffic(t, clk, res, 1)
	require.NoError(t, ml.Write(clk.Millis()))
	assert.Len(t, readLines(t, path), len(lines)+2, "one more second: the resource and the inbound total")
}

// Rolled by size, numbered as Java numbers them, at most MaxFiles kept.
func TestMetricLogRollsBySizeAndCount(t *testing.T) {
	clk := clocktest.Install(t)
	day := time.UnixMilli(clk.Millis()).Format(time.DateOnly)
	traffic(t, clk, "metriclog.roll", 8)
	dir := t.TempDir()
	ml, err := transport.OpenMetricLog("roll", transport.MetricLogConfig{Dir: dir, MaxFileSize: 1, MaxFiles: 3})
	require.NoError(t, err)
	defer ml.Close()
	require.NoError(t, ml.Write(clk.Millis()))

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	base := "roll-metrics.log." + day
	// Eight seconds, each filling a file; a new file is opened after each,
	// and only the last three are kept.
	assert.Equal(t, []string{
		base + ".6", base + ".6.idx", base + ".7", base + ".7.idx", base + ".8", base + ".8.idx",
	}, names)
	last := readLines(t, filepath.Join(dir, base+".7"))
	require.NotEmpty(t, last)
	assert.Contains(t, last[0], "metriclog.roll")
}

func TestMetricFileName(t *testing.T) {
	assert.Equal(t, "com-acme-orders-metrics.log", transport.MetricFileName("com.acme.orders", false))
	assert.Equal(t, "orders-metrics.log.pid"+strconv.Itoa(os.Getpid()), transport.MetricFileName("orders", true))
}

// Start writes the log every second when configured.
func TestServerWritesTheMetricLog(t *testing.T) {
	clk := clocktest.Install(t)
	traffic(t, clk, "metriclog.server", 2)
	dir := t.TempDir()
	start(t, transport.Config{MetricLog: &transport.MetricLogConfig{Dir: dir}})
	require.Eventually(t, func() bool {
		entries, _ := os.ReadDir(dir)
		return len(entries) == 2
	}, 10*time.Second, 10*time.Millisecond, "the log and its index")
}
