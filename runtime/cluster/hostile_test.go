package cluster_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/cluster"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

// One hot-parameter call with a 100k-element slice used to send 100k keys
// to Redis in one script. A list of more than paramflow.MaxValuesPerCall
// values is refused by the rule before any value is looked at: nothing is
// sent to Redis, and the breaker is not told.
func TestHugeHotParameterCallIsCheckedLocally(t *testing.T) {
	s := testserver.StartRedis(t)
	c := newClient(t, s, "huge:", func(cfg *cluster.Config) { cfg.HeartbeatInterval = time.Hour })
	rule := paramflow.NewRule("param.huge", 0, 3)
	rule.ClusterMode = true
	rule.ClusterConfig = &paramflow.ClusterConfig{FlowID: 31, ThresholdType: 1, FallbackToLocalWhenFail: false, SampleCount: 1, WindowIntervalMs: 60000}
	install(t, c)
	require.NoError(t, paramflow.LoadRules([]paramflow.Rule{rule}))
	t.Cleanup(func() { _ = paramflow.LoadRules(nil) })
	call := func(arg any) bool {
		e, blk := runtime.Entry(context.Background(), "param.huge", runtime.WithArgs(arg))
		if blk != nil {
			return false
		}
		e.Exit()
		return true
	}
	require.True(t, call(-1), "loads the script")
	rdb := s.Client(t)
	before := testserver.CommandCalls(t, rdb)

	huge := make([]int, 100_000)
	for i := range huge {
		huge[i] = i
	}
	assert.False(t, call(huge), "refused: no rule checks a caller-chosen number of values")
	after := testserver.CommandCalls(t, rdb)
	assert.Equal(t, before["evalsha"], after["evalsha"], "nothing sent to Redis")
	assert.Zero(t, c.Stats().Failed, "not a Redis failure: the breaker is not told")
	keys, err := rdb.Keys(context.Background(), "huge:*").Result()
	require.NoError(t, err)
	assert.Less(t, len(keys), 10)

	// Up to the cap, the call goes to Redis as before.
	atCap := huge[:100]
	assert.True(t, call(atCap))
	assert.Equal(t, after["evalsha"]+1, testserver.CommandCalls(t, rdb)["evalsha"])
	_, err = c.CheckParams(context.Background(), &rule, make([]paramflow.ClusterValue, 101), 1)
	assert.NoError(t, err, "repeats count once: one distinct value")
	vals := make([]paramflow.ClusterValue, 101)
	for i := range vals {
		vals[i] = paramflow.ClusterValue{Key: "i:" + strconv.Itoa(i), Count: 3}
	}
	_, err = c.CheckParams(context.Background(), &rule, vals, 1)
	assert.ErrorIs(t, err, paramflow.ErrCheckLocally)
}

// fakeRedis answers every command with reply: something that speaks RESP
// at the address but is not Redis running the window script (a proxy, a
// different script under the same SHA).
func fakeRedis(t *testing.T, reply string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			wg.Go(func() {
				r := bufio.NewReader(conn)
				for {
					if err := skipCommand(r); err != nil {
						return
					}
					if _, err := io.WriteString(conn, reply); err != nil {
						return
					}
				}
			})
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// skipCommand reads one RESP command (an array of bulk strings).
func skipCommand(r *bufio.Reader) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "*") {
		return errors.New("not an array")
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		return err
	}
	for range n {
		hdr, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		size, err := strconv.Atoi(strings.TrimSpace(hdr[1:]))
		if err != nil {
			return err
		}
		if _, err := r.Discard(size + 2); err != nil {
			return err
		}
	}
	return nil
}

// A verdict that was not an integer used to block every call silently. It
// is an error: the rule's fallback decides, and the breaker counts it.
func TestUnexpectedVerdictIsAnError(t *testing.T) {
	for _, reply := range []string{"*2\r\n$1\r\n1\r\n:0\r\n", "*2\r\n+OK\r\n:0\r\n", "*2\r\n:7\r\n:0\r\n"} {
		t.Run(strconv.Quote(reply), func(t *testing.T) {
			addr := fakeRedis(t, reply)
			c, err := cluster.New(cluster.Config{Addr: addr, KeyPrefix: "verdict:", HeartbeatInterval: time.Hour,
				Timeout: 300 * time.Millisecond, BreakerFailures: 3, BreakerCooldown: time.Hour})
			require.NoError(t, err)
			defer func() { require.NoError(t, c.Close()) }()
			rule := clusterRule("verdict", 5, 32, 1, 1, 1000)
			_, err = c.Check(context.Background(), &rule, 1)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "unexpected verdict")

			install(t, c, rule)
			clocktest.Install(t) // one local window for the ten calls
			admitted := calls("verdict", 10)
			assert.Equal(t, 5, admitted, "the local fallback decides: 5 per second")
			st := c.Stats()
			assert.True(t, st.BreakerOpen, "counted by the breaker as a failure")
			assert.EqualValues(t, 3, st.Failed)
		})
	}
}

// Close used to wait for a hung Redis for seconds: the heartbeat in flight
// (up to HeartbeatInterval) and then the deregistration (up to 2 s).
func TestCloseIsBoundedWhenRedisHangs(t *testing.T) {
	s := testserver.StartRedis(t)
	c, err := cluster.New(cluster.Config{Addr: s.Addr(), KeyPrefix: "close:", HeartbeatInterval: 100 * time.Millisecond})
	require.NoError(t, err)
	rule := clusterRule("close", 1, 33, 1, 1, 1000)
	_, err = c.Check(context.Background(), &rule, 1)
	require.NoError(t, err)

	s.Pause()
	defer s.Resume()
	time.Sleep(150 * time.Millisecond) // a heartbeat is now waiting on Redis
	start := time.Now()
	require.NoError(t, c.Close())
	took := time.Since(start)
	assert.Less(t, took, time.Second+150*time.Millisecond, "Close waits at most about 500 ms for Redis")
}

// A valid rule of a million 1 ms buckets (sampleCount 1e6 over
// windowIntervalMs 1e6) used to grow its window hash by a field per
// millisecond with admissions, and every check read the whole hash: 3,317
// fields after 5 s, 2.19 ms a check on the Redis the fleet shares. A
// window hash now holds at most MaxWindowBuckets buckets, whatever the rule
// says, so a check costs the same after an hour as at first.
func TestWindowBucketsAreBounded(t *testing.T) {
	s := testserver.StartRedis(t)
	c := newClient(t, s, "buckets:", func(cfg *cluster.Config) { cfg.HeartbeatInterval = time.Hour })
	rule := clusterRule("buckets", 1e9, 34, 1, 1_000_000, 1_000_000)
	prule := paramflow.NewRule("param.buckets", 0, 1e9)
	prule.ClusterMode = true
	prule.ClusterConfig = &paramflow.ClusterConfig{FlowID: 35, ThresholdType: 1, SampleCount: 1_000_000, WindowIntervalMs: 1_000_000}
	ctx := context.Background()
	start := time.Now()
	for time.Since(start) < 400*time.Millisecond {
		ok, err := c.Check(ctx, &rule, 1)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = c.CheckParams(ctx, &prule, []paramflow.ClusterValue{{Key: "i:1", Count: 1e9}}, 1)
		require.NoError(t, err)
		require.True(t, ok)
	}
	rdb := s.Client(t)
	for _, key := range []string{"buckets:flow:34", "buckets:param:35:i:1"} {
		n, err := rdb.HLen(ctx, key).Result()
		require.NoError(t, err)
		// 400 ms of 1 ms buckets would be about 400 fields; 10 s buckets
		// (1,000 s over 100) are one, or two across a bucket's turn.
		assert.LessOrEqual(t, n, int64(2), "%s: fields in the window hash", key)
	}
}
