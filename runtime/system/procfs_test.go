package system

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture lays out files under a temporary root for a procReader.
func fixture(t *testing.T, files map[string]string) *procReader {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return newProcReader(root)
}

func write(t *testing.T, p *procReader, name, body string) {
	t.Helper()
	require.NoError(t, os.WriteFile(p.file(name), []byte(body), 0o644))
}

// stepClock gives a procReader a wall clock stepped by hand.
func stepClock(p *procReader) func(time.Duration) {
	now := time.Unix(1_000_000, 0)
	p.now = func() time.Time { return now }
	return func(d time.Duration) { now = now.Add(d) }
}

func TestParseLoadavg(t *testing.T) {
	v, err := parseLoadavg("3.16 1.79 0.81 1/89 15674\n")
	require.NoError(t, err)
	assert.Equal(t, 3.16, v)
	for _, bad := range []string{"", "x 1 2", "-1 0 0"} {
		_, err := parseLoadavg(bad)
		assert.Error(t, err, bad)
	}
}

func TestMachineWideCPUUsageFromProcStat(t *testing.T) {
	p := fixture(t, map[string]string{
		"/proc/stat":             "cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 1 2 3 4\n",
		"/proc/self/cgroup":      "0::/\n",
		"/proc/self/mountinfo":   "40 30 0:37 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
		"/sys/fs/cgroup/cpu.max": "max 100000\n",
	})
	u, err := p.CPUUsage()
	require.NoError(t, err)
	assert.Equal(t, -1.0, u, "the first reading has nothing to compare with")
	// +300 busy, +100 idle, +100 iowait jiffies: 300/500 busy.
	write(t, p, "/proc/stat", "cpu  300 50 150 800 200 0 0 0 0 0\n")
	u, err = p.CPUUsage()
	require.NoError(t, err)
	assert.InDelta(t, 0.6, u, 1e-9)
	// No time passed: unknown.
	u, err = p.CPUUsage()
	require.NoError(t, err)
	assert.Equal(t, -1.0, u)
}

func TestCgroupV2LimitUsesCgroupUsage(t *testing.T) {
	p := fixture(t, map[string]string{
		"/proc/stat":                            "cpu  1 0 0 1 0 0 0 0\n",
		"/proc/self/cgroup":                     "0::/kubepods/pod1\n",
		"/proc/self/mountinfo":                  "29 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n",
		"/sys/fs/cgroup/kubepods/cpu.max":       "200000 100000\n", // 2 CPUs on the parent
		"/sys/fs/cgroup/kubepods/pod1/cpu.max":  "50000 100000\n",  // half a CPU: the tightest
		"/sys/fs/cgroup/kubepods/pod1/cpu.stat": "usage_usec 1000000\nuser_usec 1\nsystem_usec 2\n",
	})
	step := stepClock(p)
	lim, ok := p.cgroupLimit()
	require.True(t, ok)
	assert.Equal(t, 0.5, lim.cpus)
	u, err := p.CPUUsage()
	require.NoError(t, err)
	assert.Equal(t, -1.0, u)
	step(time.Second)
	write(t, p, "/sys/fs/cgroup/kubepods/pod1/cpu.stat", "usage_usec 1400000\n") // 0.4 s of CPU in 1 s
	u, err = p.CPUUsage()
	require.NoError(t, err)
	assert.InDelta(t, 0.8, u, 1e-9, "0.4 CPU-seconds of a 0.5 CPU limit")
	step(time.Second)
	write(t, p, "/sys/fs/cgroup/kubepods/pod1/cpu.stat", "usage_usec 2400000\n") // over the limit
	u, err = p.CPUUsage()
	require.NoError(t, err)
	assert.Equal(t, 1.0, u, "clamped to 1")
}

func TestCgroupV1LimitWithNamespacedMount(t *testing.T) {
	p := fixture(t, map[string]string{
		"/proc/stat":        "cpu  1 0 0 1 0 0 0 0\n",
		"/proc/self/cgroup": "12:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/\n",
		"/proc/self/mountinfo": "31 30 0:28 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n" +
			"40 30 0:37 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
		"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":  "150000\n",
		"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
		"/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage":     "5000000000\n",
	})
	step := stepClock(p)
	_, _ = p.CPUUsage()
	step(2 * time.Second)
	write(t, p, "/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage", "6500000000\n") // 1.5 s in 2 s
	u, err := p.CPUUsage()
	require.NoError(t, err)
	assert.InDelta(t, 0.5, u, 1e-9, "1.5 CPU-seconds in 2 s of a 1.5 CPU limit")
}

func TestCgroupV1NoQuotaFallsBackToMachine(t *testing.T) {
	// This machine's layout: v1 cpu with quota -1, an empty v2 hierarchy.
	p := fixture(t, map[string]string{
		"/proc/stat":        "cpu  100 0 0 100 0 0 0 0\n",
		"/proc/self/cgroup": "2:cpuacct:/\n1:cpu:/\n0::/\n",
		"/proc/self/mountinfo": "31 30 0:28 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n" +
			"32 30 0:29 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n" +
			"40 30 0:37 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
		"/sys/fs/cgroup/cpu/cpu.cfs_quota_us":  "-1\n",
		"/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
	})
	_, ok := p.cgroupLimit()
	assert.False(t, ok)
	_, _ = p.CPUUsage()
	write(t, p, "/proc/stat", "cpu  150 0 0 150 0 0 0 0\n")
	u, err := p.CPUUsage()
	require.NoError(t, err)
	assert.InDelta(t, 0.5, u, 1e-9)
}

func TestLimitWithoutCgroupAccountingUsesProcessTime(t *testing.T) {
	p := fixture(t, map[string]string{
		"/proc/self/cgroup":      "0::/\n",
		"/proc/self/mountinfo":   "29 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
		"/sys/fs/cgroup/cpu.max": "100000 100000\n",
		"/proc/self/stat":        "42 (my (odd) proc) S 1 42 42 0 -1 0 0 0 0 0 100 50 0 0 20 0 1 0\n",
	})
	step := stepClock(p)
	_, _ = p.CPUUsage()
	step(time.Second)
	write(t, p, "/proc/self/stat", "42 (my (odd) proc) S 1 42 42 0 -1 0 0 0 0 0 120 55 0 0 20 0 1 0\n") // +25 ticks
	u, err := p.CPUUsage()
	require.NoError(t, err)
	assert.InDelta(t, 0.25, u, 1e-9)
}

func TestMissingFilesAreErrors(t *testing.T) {
	p := fixture(t, nil)
	_, err := p.SystemLoad()
	assert.Error(t, err)
	_, err = p.CPUUsage()
	assert.Error(t, err)
}
