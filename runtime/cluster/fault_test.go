package cluster_test

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/cluster"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// timedCalls makes n calls of resource and returns how many were admitted
// and the longest call.
func timedCalls(resource string, n int) (admitted int, longest time.Duration) {
	for range n {
		start := time.Now()
		e, b := runtime.Entry(context.Background(), resource)
		if d := time.Since(start); d > longest {
			longest = d
		}
		if b == nil {
			admitted++
			e.Exit()
		}
	}
	return admitted, longest
}

// drain has another instance take what is left of rule's cluster budget,
// so that only the local fallback could admit calls of this instance.
func drain(t *testing.T, other *cluster.Client, rule flow.Rule) {
	t.Helper()
	for range 100 {
		ok, err := other.Check(context.Background(), &rule, 1)
		if err == nil && !ok {
			return
		}
	}
	t.Fatalf("the cluster budget of %q did not run out", rule.Resource)
}

// Redis killed mid-run: calls go on under the local rule, none waits
// longer than the timeout, the breaker stops asking Redis, and cluster
// limiting comes back by itself when Redis restarts on the same port.
func TestRedisOutageFallsBackAndRecovers(t *testing.T) {
	s := testserver.StartRedis(t)
	c := newClient(t, s, "fault:")
	other := newClient(t, s, "fault:")
	// One bucket of a minute: the cluster budget cannot renew mid-test,
	// while the local fallback admits 5 per second.
	rule := clusterRule("fault", 5, 21, 1, 1, 60000)
	rule.ClusterConfig.ResourceTimeout = 200
	install(t, c, rule)
	const slack = 150 * time.Millisecond // scheduling under -race on two shared cores

	require.Eventually(t, func() bool { return c.Stats().Live == 2 }, 2*time.Second, 10*time.Millisecond, "a heartbeat sees both")
	drain(t, other, rule)
	admitted, _ := timedCalls("fault", 10)
	require.Equal(t, 0, admitted, "Redis up: the cluster budget is spent (locally 5 would pass)")

	s.Kill()
	admitted, longest := timedCalls("fault", 20)
	assert.Equal(t, 2, admitted, "Redis down: the local rule, this instance's share of 5 per second (two live)")
	assert.Less(t, longest, 200*time.Millisecond+slack, "no call waits past resourceTimeout")
	st := c.Stats()
	assert.True(t, st.BreakerOpen)
	assert.Equal(t, int64(3), st.Failed, "three failures open the breaker")
	assert.Equal(t, int64(17), st.Skipped, "then Redis is not asked")

	s.Start() // same port, empty: no keys, no scripts
	deadline := time.Now().Add(3 * time.Second)
	for c.Stats().BreakerOpen || c.Stats().Answered < 11 {
		require.True(t, time.Now().Before(deadline), "cluster checking did not resume: %+v", c.Stats())
		timedCalls("fault", 1)
		time.Sleep(50 * time.Millisecond)
	}
	drain(t, other, rule)
	admitted, _ = timedCalls("fault", 10)
	assert.Equal(t, 0, admitted, "Redis back: cluster limiting again")
}

// A Redis that accepts connections but never answers (SIGSTOP) costs a
// call at most the timeout; with fallback off the call is blocked.
func TestHungRedisTimesOut(t *testing.T) {
	s := testserver.StartRedis(t)
	c := newClient(t, s, "hung:", func(cfg *cluster.Config) { cfg.BreakerFailures = 100 })
	rule := clusterRule("hung", 1000, 22, 1, 10, 1000)
	rule.ClusterConfig.ResourceTimeout = 2000 // Java's default, capped by Config.Timeout
	rule.ClusterConfig.FallbackToLocalWhenFail = false
	install(t, c, rule)
	admitted, _ := timedCalls("hung", 3)
	require.Equal(t, 3, admitted)

	s.Pause()
	admitted, longest := timedCalls("hung", 3)
	s.Resume()
	assert.Equal(t, 0, admitted, "no answer and no fallback: blocked")
	assert.GreaterOrEqual(t, longest, 250*time.Millisecond, "waited for Redis up to the 300 ms cap")
	assert.Less(t, longest, 300*time.Millisecond+150*time.Millisecond, "and no longer")
	assert.Equal(t, int64(3), c.Stats().Failed)

	deadline := time.Now().Add(2 * time.Second)
	for {
		if admitted, _ = timedCalls("hung", 1); admitted == 1 {
			break
		}
		require.True(t, time.Now().Before(deadline), "checks did not recover after SIGCONT")
	}
}

// A Redis outage used to be silent: only Stats knew. It is told once
// when it starts (a warning through the runtime's logger), shown by
// runtime.Dependencies (metrics, the dashboard) while it lasts, and told
// once when it ends, with what the rules' fallback answered meanwhile.
func TestRedisOutageIsToldOnceWhenItStartsAndEnds(t *testing.T) {
	log := logtest.Capture(t)
	s := testserver.StartRedis(t)
	c := newClient(t, s, "told:")
	rule := clusterRule("told", 1000, 23, 1, 10, 1000)
	rule.ClusterConfig.ResourceTimeout = 200
	install(t, c, rule)
	admitted, _ := timedCalls("told", 5)
	require.Equal(t, 5, admitted)
	require.False(t, dependencyDown(t, s.Addr()))

	s.Kill()
	admitted, _ = timedCalls("told", 20)
	assert.Equal(t, 18, admitted, "checked locally once the breaker opened (the two failures before it refused)")
	assert.Equal(t, 1, log.Count("cluster redis unreachable"), "one warning for the whole outage")
	assert.Contains(t, log.Lines("cluster redis unreachable")[0], "level=WARN")
	assert.Contains(t, log.Lines("cluster redis unreachable")[0], "name="+s.Addr())
	assert.True(t, dependencyDown(t, s.Addr()))

	s.Start()
	deadline := time.Now().Add(3 * time.Second)
	for c.Stats().BreakerOpen {
		require.True(t, time.Now().Before(deadline), "cluster checking did not resume: %+v", c.Stats())
		timedCalls("told", 1)
		time.Sleep(50 * time.Millisecond)
	}
	assert.False(t, dependencyDown(t, s.Addr()))
	lines := log.Lines("cluster redis answers again")
	require.Len(t, lines, 1, "one line when it ends")
	assert.Contains(t, lines[0], "level=INFO")
	assert.Regexp(t, `checkedLocally=[1-9][0-9]* blocked=0`, lines[0])
	assert.Equal(t, 1, log.Count("cluster redis unreachable"), "failed probes did not start new outages")
}

func dependencyDown(t *testing.T, addr string) bool {
	t.Helper()
	for _, d := range runtime.Dependencies() {
		if d.Kind == "cluster redis" && d.Name == addr {
			return d.Down
		}
	}
	t.Fatalf("no dependency cluster redis %s in %+v", addr, runtime.Dependencies())
	return false
}

// slowProxy forwards TCP connections to a Redis, holding each reply back
// for delay (0: none) before passing it on: a Redis that answers, late.
type slowProxy struct {
	ln    net.Listener
	delay atomic.Int64 // ns
	wg    sync.WaitGroup
}

func startSlowProxy(t *testing.T, target string) *slowProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &slowProxy{ln: ln}
	var conns sync.Map
	p.wg.Go(func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			conns.Store(client, server)
			p.wg.Go(func() { _, _ = io.Copy(server, client); server.Close() })
			p.wg.Go(func() {
				defer client.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := server.Read(buf)
					if n > 0 {
						time.Sleep(time.Duration(p.delay.Load()))
						if _, werr := client.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		conns.Range(func(c, s any) bool { c.(net.Conn).Close(); s.(net.Conn).Close(); return true })
		p.wg.Wait()
	})
	return p
}

func (p *slowProxy) Addr() string { return p.ln.Addr().String() }

// A Redis that answers, but slower than a check may wait, keeps the
// breaker open: heartbeats (100 ms apart while it is open, each given
// HeartbeatInterval) are answered, but a heartbeat slower than the time a
// check may wait proves nothing for checks, so the outage is told once
// and goes on, rather than the breaker closing on each heartbeat and
// opening again on the next checks, each told. Once Redis answers in
// time again, a heartbeat ends the outage, told once.
func TestSlowRedisKeepsTheBreakerOpen(t *testing.T) {
	log := logtest.Capture(t)
	s := testserver.StartRedis(t)
	p := startSlowProxy(t, s.Addr())
	c, err := cluster.New(cluster.Config{Addr: p.Addr(), KeyPrefix: "slow:",
		HeartbeatInterval: time.Second, InstanceTTL: 3 * time.Second,
		Timeout: 200 * time.Millisecond, BreakerFailures: 3, BreakerCooldown: 300 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	rule := clusterRule("slow", 1000, 24, 1, 10, 1000)
	rule.ClusterConfig.ResourceTimeout = 200
	ctx := context.Background()
	ok, err := c.Check(ctx, &rule, 1)
	require.NoError(t, err)
	require.True(t, ok)

	p.delay.Store(int64(400 * time.Millisecond)) // answered within a heartbeat's second, not a check's 200 ms
	for range 3 {
		_, err := c.Check(ctx, &rule, 1)
		require.Error(t, err, "a check does not wait past its 200 ms")
	}
	require.True(t, c.Stats().BreakerOpen, "three checks timed out")
	// Long enough for several heartbeats to be answered (each within 400
	// ms of the next 100 ms tick) and for the cooldown's probes to time out.
	for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); {
		_, _ = c.Check(ctx, &rule, 1)
		assert.True(t, c.Stats().BreakerOpen, "an answer slower than a check may wait does not close the breaker")
		time.Sleep(50 * time.Millisecond)
	}
	assert.Equal(t, 1, log.Count("cluster redis unreachable"), "one outage, told once")
	assert.Zero(t, log.Count("cluster redis answers again"), "never told over while Redis stays slow")
	assert.True(t, dependencyDown(t, p.Addr()))

	p.delay.Store(0)
	require.Eventually(t, func() bool { return !c.Stats().BreakerOpen }, 2*time.Second, 10*time.Millisecond,
		"a heartbeat answered in time ends the outage")
	ok, err = c.Check(ctx, &rule, 1)
	require.NoError(t, err, "counted in Redis again")
	assert.True(t, ok)
	assert.Equal(t, 1, log.Count("cluster redis answers again"), "the end told once")
	assert.False(t, dependencyDown(t, p.Addr()))
}

// A check that fails while the breaker is still closed used to be
// admitted by the local fallback: Redis did not count it, and the rest of
// the fleet spent the whole count in the same window, so a timeout or a
// reset connection put the fleet over its limit. Until the breaker opens
// (an outage), a failed check refuses the call; from then on the local
// share answers.
func TestAFailureBeforeTheBreakerOpensRefuses(t *testing.T) {
	s := testserver.StartRedis(t)
	c := newClient(t, s, "blip:")
	rule := clusterRule("blip", 1000, 25, 1, 10, 1000)
	rule.ClusterConfig.ResourceTimeout = 200
	install(t, c, rule)
	hot := paramflow.NewRule("blip", 0, 1000)
	hot.ClusterMode = true
	hot.ClusterConfig = &paramflow.ClusterConfig{FlowID: 26, ThresholdType: 1, FallbackToLocalWhenFail: true}
	values := []paramflow.ClusterValue{{Key: "s:v", Count: 1000}}
	admitted, _ := timedCalls("blip", 3)
	require.Equal(t, 3, admitted)
	ok, err := c.CheckParams(context.Background(), &hot, values, 1)
	require.NoError(t, err)
	require.True(t, ok)

	s.Kill()
	admitted, _ = timedCalls("blip", 1)
	assert.Zero(t, admitted, "the first failure: not an outage yet, refused")
	ok, err = c.CheckParams(context.Background(), &hot, values, 1)
	var lc *paramflow.LocalCounts
	require.ErrorAs(t, err, &lc, "the second failure, a hot value's")
	assert.False(t, ok)
	assert.Equal(t, []int64{0}, lc.Counts, "refused too")
	assert.False(t, c.Stats().BreakerOpen)
	admitted, _ = timedCalls("blip", 5)
	assert.True(t, c.Stats().BreakerOpen, "the third failure opened the breaker")
	assert.Equal(t, 5, admitted, "an outage: the local share answers")
}
