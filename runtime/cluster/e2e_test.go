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

// Redis killed under three processes sharing a global 300/s: each used to
// fall back to the whole count, so the fleet admitted 540-733 a second
// (up to 2.25x). Each now checks its share, 300 / 3 live instances, so the
// fleet stays within 1.25x of the limit during the outage, and is counted
// in Redis again, exactly, once Redis is back.
func TestRedisKillHoldsTheFleetLimit(t *testing.T) {
	s := testserver.StartRedis(t)
	const count = 300
	rule := clusterRule("e2e-kill", count, 13, 1, 10, 1000)
	t0 := nextSecond(1500 * time.Millisecond)
	specs := make([]childSpec, 3)
	for i := range specs {
		specs[i] = childSpec{Addr: s.Addr(), Prefix: "e2e-kill:", Rule: rule,
			JoinAt: t0.Add(-time.Second), StartAt: t0, StopAt: t0.Add(8 * time.Second), Goroutines: 4}
	}
	done := make(chan []childReport)
	go func() { done <- runChildren(t, specs) }()
	time.Sleep(time.Until(t0.Add(2 * time.Second))) // the test's schedule, on Redis's own (real) clock
	s.Kill()
	time.Sleep(time.Until(t0.Add(4 * time.Second)))
	s.Start()
	reports := <-done

	got := perSecond(reports, t0, 8)
	t.Logf("admitted per second: %v (Redis down from 2 s to 4 s)", got)
	for _, sec := range []int{0, 1, 6, 7} {
		assert.LessOrEqual(t, got[sec], count, "second %d: counted in Redis, never above the count", sec)
		assert.GreaterOrEqual(t, got[sec], count*95/100, "second %d: within 5%% of the count", sec)
	}
	for _, sec := range []int{2, 3, 4, 5} {
		assert.LessOrEqual(t, got[sec], count*125/100, "second %d, Redis down or just back: within 1.25x of the fleet's limit", sec)
	}
	for i, r := range reports {
		assert.Positive(t, r.Stats.Skipped, "process %d checked locally during the outage", i)
	}
}

// With leases, three processes under uneven load (eight, three and one
// goroutines calling as fast as they can) never admit more than the
// global 300 in a window, and admit nearly all of it.
func TestLeasesAreExactUnderUnevenLoad(t *testing.T) {
	s := testserver.StartRedis(t)
	const count = 300
	rule := clusterRule("e2e-lease", count, 14, 1, 10, 1000)
	t0 := nextSecond(1500 * time.Millisecond)
	var specs []childSpec
	for _, g := range []int{8, 3, 1} {
		specs = append(specs, childSpec{Addr: s.Addr(), Prefix: "e2e-lease:", Rule: rule, Leases: true,
			JoinAt: t0.Add(-time.Second), StartAt: t0, StopAt: t0.Add(4 * time.Second), Goroutines: g})
	}
	reports := runChildren(t, specs)
	got := perSecond(reports, t0, 4)
	t.Logf("admitted per second: %v", got)
	var leases, leased int64
	for i, r := range reports {
		assert.NotEmpty(t, r.Admitted, "process %d was admitted calls", i)
		assert.Zero(t, r.Stats.Failed, "process %d", i)
		leases += r.Stats.Leases
		leased += r.Stats.Leased
		t.Logf("process %d: %+v", i, r.Stats)
	}
	for sec, n := range got {
		assert.LessOrEqual(t, n, count, "second %d: never above the count", sec)
		assert.GreaterOrEqual(t, n, count*95/100, "second %d: within 5%% of the count", sec)
	}
	t.Logf("%d lease requests for %d calls admitted: %.1f per 1,000", leases, leased, 1000*float64(leases)/float64(leased))
}

// Demand of twice the limit, spread 4:1:1 over three leasing processes
// calling at a steady pace: the fleet is admitted at least 95% of the
// global 300 a second, never more.
func TestLeasesAdmitTheFleetAtTwiceTheDemand(t *testing.T) {
	s := testserver.StartRedis(t)
	const count = 300
	rule := clusterRule("e2e-demand", count, 15, 1, 10, 1000)
	t0 := nextSecond(1500 * time.Millisecond)
	var specs []childSpec
	for _, rate := range []float64{400, 100, 100} { // 600 a second, 2x
		specs = append(specs, childSpec{Addr: s.Addr(), Prefix: "e2e-demand:", Rule: rule, Leases: true,
			JoinAt: t0.Add(-time.Second), StartAt: t0, StopAt: t0.Add(4 * time.Second), Goroutines: 2, Rate: rate / 2})
	}
	reports := runChildren(t, specs)
	got := perSecond(reports, t0, 4)
	t.Logf("admitted per second: %v", got)
	for sec, n := range got {
		assert.LessOrEqual(t, n, count, "second %d: never above the count", sec)
		assert.GreaterOrEqual(t, n, count*95/100, "second %d: at least 95%% of the count", sec)
	}
}
