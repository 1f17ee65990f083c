package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/cluster"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// newClient connects a client to s with short test timings; it is closed
// (and uninstalled) when the test ends.
func newClient(t testing.TB, s *testserver.Redis, prefix string, tweak ...func(*cluster.Config)) *cluster.Client {
	t.Helper()
	cfg := cluster.Config{
		Addr: s.Addr(), KeyPrefix: prefix,
		HeartbeatInterval: 200 * time.Millisecond, InstanceTTL: time.Second,
		Timeout: 300 * time.Millisecond, BreakerFailures: 3, BreakerCooldown: 300 * time.Millisecond,
	}
	for _, f := range tweak {
		f(&cfg)
	}
	c, err := cluster.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// clusterRule is a QPS rule counted across the cluster.
func clusterRule(resource string, count float64, flowID int64, thresholdType int, samples, windowMs int) flow.Rule {
	return flow.Rule{
		Resource: resource, Grade: flow.GradeQPS, Count: count, ClusterMode: true,
		ClusterConfig: &flow.ClusterConfig{
			FlowID: flowID, ThresholdType: thresholdType, FallbackToLocalWhenFail: true,
			SampleCount: samples, WindowIntervalMs: windowMs, ResourceTimeout: 300,
		},
	}
}

// install makes c the flow slot's cluster checker and loads rules, until
// the test ends.
func install(t testing.TB, c *cluster.Client, rules ...flow.Rule) {
	t.Helper()
	c.Install()
	require.NoError(t, flow.LoadRules(rules))
	t.Cleanup(func() {
		cluster.Uninstall()
		_ = flow.LoadRules(nil)
	})
}

func calls(resource string, n int) int {
	admitted := 0
	for range n {
		e, b := runtime.Entry(context.Background(), resource)
		if b == nil {
			admitted++
			e.Exit()
		}
	}
	return admitted
}

func TestNewNeedsAnAddress(t *testing.T) {
	_, err := cluster.New(cluster.Config{})
	require.Error(t, err)
}

func TestGlobalThresholdIsSharedByClients(t *testing.T) {
	s := testserver.StartRedis(t)
	a := newClient(t, s, "global:")
	b := newClient(t, s, "global:")
	rule := clusterRule("shared", 10, 1, 1, 1, 60000) // one bucket of a minute: no window turns mid-test
	ctx := context.Background()

	admitted := 0
	for i := range 30 {
		c := a
		if i%2 == 1 {
			c = b
		}
		ok, err := c.Check(ctx, &rule, 1)
		require.NoError(t, err)
		if ok {
			admitted++
		}
	}
	assert.Equal(t, 10, admitted, "one global window for both clients")
	assert.Equal(t, int64(30), a.Stats().Answered+b.Stats().Answered)
}

func TestBatchIsAdmittedWholeOrNotAtAll(t *testing.T) {
	s := testserver.StartRedis(t)
	c := newClient(t, s, "batch:")
	rule := clusterRule("batch", 10, 2, 1, 1, 60000)
	ctx := context.Background()
	for _, step := range []struct {
		acquire int64
		want    bool
	}{{6, true}, {5, false}, {4, true}, {1, false}} {
		ok, err := c.Check(ctx, &rule, step.acquire)
		require.NoError(t, err)
		assert.Equal(t, step.want, ok, "acquire %d", step.acquire)
	}
}

func TestAverageThresholdFollowsLiveInstances(t *testing.T) {
	s := testserver.StartRedis(t)
	a := newClient(t, s, "avg:")
	rule := clusterRule("avg", 5, 3, 0, 1, 60000)
	ctx := context.Background()
	count := func(n int) int {
		admitted := 0
		for range n {
			ok, err := a.Check(ctx, &rule, 1)
			require.NoError(t, err)
			if ok {
				admitted++
			}
		}
		return admitted
	}
	assert.Equal(t, 5, count(10), "one instance: 5 × 1")

	b := newClient(t, s, "avg:")
	n, err := b.LiveInstances(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(2), n)
	assert.Equal(t, 5, count(10), "two instances: 5 × 2, 5 already taken")

	require.NoError(t, b.Close())
	n, err = a.LiveInstances(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "Close deregisters at once")
	assert.Equal(t, 0, count(3), "back to 5 × 1, 10 taken")
}

func TestSlidingWindowForgetsOldBuckets(t *testing.T) {
	s := testserver.StartRedis(t)
	c := newClient(t, s, "slide:")
	// Two buckets of 1 s: wide enough that six checks on a loaded machine
	// stay within one window.
	rule := clusterRule("slide", 4, 4, 1, 2, 2000)
	ctx := context.Background()
	admitted := func() int {
		n := 0
		for range 6 {
			ok, err := c.Check(ctx, &rule, 1)
			require.NoError(t, err)
			if ok {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 4, admitted())
	time.Sleep(2050 * time.Millisecond) // the whole window has turned
	assert.Equal(t, 4, admitted())

	ttl, err := s.Client(t).PTTL(ctx, "slide:flow:4").Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, time.Duration(0), "window keys expire")
	assert.LessOrEqual(t, ttl, 4*time.Second)
}

func TestFlowSlotUsesTheCluster(t *testing.T) {
	s := testserver.StartRedis(t)
	c := newClient(t, s, "slot:")
	other := newClient(t, s, "slot:")
	rule := clusterRule("slot", 5, 5, 1, 1, 60000)
	install(t, c, rule)

	ok, err := other.Check(context.Background(), &rule, 3) // another instance takes 3 of 5
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 2, calls("slot", 10), "the local check alone would admit 5")

	blocked := func() *runtime.BlockError {
		_, b := runtime.Entry(context.Background(), "slot")
		return b
	}()
	require.NotNil(t, blocked)
	assert.Equal(t, runtime.BlockFlow, blocked.BlockType())
	assert.Equal(t, "slot", blocked.Rule().ResourceName())
}

func TestOneRoundTripPerCheck(t *testing.T) {
	s := testserver.StartRedis(t)
	c := newClient(t, s, "trips:", func(cfg *cluster.Config) { cfg.HeartbeatInterval = time.Hour })
	rule := clusterRule("trips", 1e9, 6, 0, 10, 1000)
	ctx := context.Background()
	_, err := c.Check(ctx, &rule, 1) // loads the script (NOSCRIPT, then EVAL)
	require.NoError(t, err)

	rdb := s.Client(t)
	before := testserver.CommandCalls(t, rdb)
	const n = 50
	for range n {
		_, err := c.Check(ctx, &rule, 1)
		require.NoError(t, err)
	}
	after := testserver.CommandCalls(t, rdb)
	// What the script calls inside Redis is not a round trip.
	inScript := map[string]bool{"time": true, "zremrangebyscore": true, "zcard": true, "hgetall": true,
		"hdel": true, "hincrby": true, "pexpire": true, "info": true}
	assert.Equal(t, int64(n), after["evalsha"]-before["evalsha"], "one EVALSHA per check")
	for cmd, calls := range after {
		if cmd != "evalsha" && !inScript[cmd] {
			assert.Equal(t, before[cmd], calls, "no %s round trips", cmd)
		}
	}
}

func TestNoGoroutineOutlivesClose(t *testing.T) {
	s := testserver.StartRedis(t)
	opts := goleak.IgnoreCurrent()
	c, err := cluster.New(cluster.Config{Addr: s.Addr(), KeyPrefix: "leak:", HeartbeatInterval: 50 * time.Millisecond})
	require.NoError(t, err)
	rule := clusterRule("leak", 1, 7, 1, 1, 1000)
	_, err = c.Check(context.Background(), &rule, 1)
	require.NoError(t, err)
	time.Sleep(120 * time.Millisecond) // a heartbeat or two
	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "Close is idempotent")
	goleak.VerifyNone(t, opts)
}

func TestHotParameterValuesShareTheirLimits(t *testing.T) {
	s := testserver.StartRedis(t)
	a := newClient(t, s, "param:")
	b := newClient(t, s, "param:")
	rule := paramflow.NewRule("param", 0, 3)
	rule.ClusterMode = true
	rule.ClusterConfig = &paramflow.ClusterConfig{FlowID: 8, ThresholdType: 1, FallbackToLocalWhenFail: true, SampleCount: 1, WindowIntervalMs: 60000}
	install(t, a)
	require.NoError(t, paramflow.LoadRules([]paramflow.Rule{rule}))
	t.Cleanup(func() { _ = paramflow.LoadRules(nil) })
	ctx := context.Background()

	ok, err := b.CheckParams(ctx, &rule, []paramflow.ClusterValue{{Key: "s:hot", Count: 3}}, 2)
	require.NoError(t, err)
	require.True(t, ok, "another instance takes 2 of hot's 3")
	call := func(arg any) bool {
		e, blk := runtime.Entry(ctx, "param", runtime.WithArgs(arg))
		if blk != nil {
			return false
		}
		e.Exit()
		return true
	}
	assert.True(t, call("hot"))
	assert.False(t, call("hot"), "hot's cluster budget is spent")
	assert.True(t, call("cold"))
	assert.False(t, call([]string{"cold", "hot"}), "all values or none")
	assert.True(t, call([]string{"cold", "cold"}), "a value given twice counts twice: 1+2 of 3")
	assert.False(t, call("cold"))
	assert.Zero(t, a.Stats().Failed)

	long := string(make([]byte, 1000))
	ok, err = b.CheckParams(ctx, &rule, []paramflow.ClusterValue{{Key: "s:" + long, Count: 1}}, 1)
	require.NoError(t, err)
	assert.True(t, ok, "a long value is keyed by its hash")
}
