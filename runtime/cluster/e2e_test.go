package cluster_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runChildren starts one OS process per spec (this test binary, in child
// mode) and returns their reports once all have exited.
func runChildren(t *testing.T, specs []childSpec) []childReport {
	t.Helper()
	reports := make([]childReport, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		js, err := json.Marshal(spec)
		require.NoError(t, err)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+string(js))
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		require.NoError(t, cmd.Start())
		wg.Go(func() {
			if err := cmd.Wait(); err != nil {
				errs[i] = fmt.Errorf("child %d: %v: %s", i, err, stderr.String())
				return
			}
			errs[i] = json.Unmarshal(out.Bytes(), &reports[i])
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	return reports
}

// perSecond counts the admissions of all reports in each whole second
// since t0.
func perSecond(reports []childReport, t0 time.Time, seconds int) []int {
	counts := make([]int, seconds)
	for _, r := range reports {
		for _, ms := range r.Admitted {
			if s := int((ms - t0.UnixMilli()) / 1000); ms >= t0.UnixMilli() && s < seconds {
				counts[s]++
			}
		}
	}
	return counts
}

// nextSecond is a whole second at least lead from now: Redis's buckets
// are aligned on whole seconds, and so are the test's windows.
func nextSecond(lead time.Duration) time.Time {
	return time.Now().Add(lead).Truncate(time.Second).Add(time.Second)
}

// Three processes share one global limit of 300 calls per second through
// Redis: every second, together, they admit between 95% and 100% of it.
func TestThreeProcessesShareAGlobalLimit(t *testing.T) {
	s := testserver.StartRedis(t)
	const count = 300
	rule := clusterRule("e2e-global", count, 11, 1, 10, 1000)
	t0 := nextSecond(1500 * time.Millisecond)
	specs := make([]childSpec, 3)
	for i := range specs {
		specs[i] = childSpec{Addr: s.Addr(), Prefix: "e2e-global:", Rule: rule,
			JoinAt: t0.Add(-time.Second), StartAt: t0, StopAt: t0.Add(3 * time.Second), Goroutines: 4}
	}
	reports := runChildren(t, specs)

	for i, r := range reports {
		assert.NotEmpty(t, r.Admitted, "process %d was admitted calls", i)
		assert.Zero(t, r.Stats.Failed, "process %d: every check answered by Redis", i)
	}
	for s, n := range perSecond(reports, t0, 3) {
		assert.LessOrEqual(t, n, count, "second %d: never above the global count", s)
		assert.GreaterOrEqual(t, n, count*95/100, "second %d: within 5%% of the count", s)
		t.Logf("second %d: %d admitted of %d", s, n, count)
	}
}

// thresholdType 0 follows the fleet: 40 per live instance per second, with
// three processes, then a fourth joining, then one crashing (its
// registration expires after the 1 s TTL).
func TestAverageLimitFollowsTheFleet(t *testing.T) {
	s := testserver.StartRedis(t)
	const perInstance = 40
	rule := clusterRule("e2e-avg", perInstance, 12, 0, 1, 1000) // whole-second windows
	t0 := nextSecond(1500 * time.Millisecond)
	spec := func(join, start, stop time.Duration, crash bool) childSpec {
		return childSpec{Addr: s.Addr(), Prefix: "e2e-avg:", Rule: rule,
			JoinAt: t0.Add(join), StartAt: t0.Add(start), StopAt: t0.Add(stop), Goroutines: 3, Crash: crash}
	}
	reports := runChildren(t, []childSpec{
		spec(-time.Second, 0, 6*time.Second, false),
		spec(-time.Second, 0, 6*time.Second, false),
		spec(-time.Second, 0, 3*time.Second, true),                               // crashes at 3 s, expires by 4 s
		spec(1500*time.Millisecond, 1500*time.Millisecond, 6*time.Second, false), // joins at 1.5 s
	})
	got := perSecond(reports, t0, 6)
	t.Logf("admitted per second: %v", got)
	for _, w := range []struct {
		second, instances int
	}{{0, 3}, {2, 4}, {5, 3}} {
		limit := perInstance * w.instances
		assert.LessOrEqual(t, got[w.second], limit, "second %d: %d instances", w.second, w.instances)
		assert.GreaterOrEqual(t, got[w.second], limit*95/100, "second %d: %d instances", w.second, w.instances)
	}
}
