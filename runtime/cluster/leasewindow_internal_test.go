package cluster

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stepMono makes mono a hand-stepped clock until the test ends, set to
// start. Call it before New: the heartbeat goroutine reads mono.
func stepMono(t *testing.T, start int64) *atomic.Int64 {
	var now atomic.Int64
	now.Store(start)
	real := mono
	mono = now.Load
	t.Cleanup(func() { mono = real })
	return &now
}

// leaseScriptAt makes the lease script read Redis's clock as TIME would
// answer at unix seconds sec and µs usec, until the test ends.
func leaseScriptAt(t *testing.T, sec, usec string) {
	real := leaseScript
	leaseScript = redis.NewScript(strings.Replace(leaseSource, "redis.call('TIME')", "{'"+sec+"', '"+usec+"'}", 1))
	t.Cleanup(func() { leaseScript = real })
}

// A lease dies when its window turns on Redis's clock, to the µs. Under
// load, three processes once admitted 302 of a 300/s limit in the second
// after Redis came back: a grant's reply said the ms left in the window,
// counted from the whole ms Redis's clock was in, so a grant 400 µs into
// a ms lived 400 µs into the next window, and callers paced on whole
// seconds spent the last window's tokens there, which Redis had counted
// in that one, while it counted the new window's in full.
func TestALeaseDiesWhenItsWindowTurns(t *testing.T) {
	s := testserver.StartRedis(t)
	const sent = int64(time.Hour) // the mono clock when the lease was asked for and granted
	now := stepMono(t, sent)
	// 640.4 ms into a window: 359.6 ms left.
	leaseScriptAt(t, "1000056", "640400")
	c, err := New(Config{Addr: s.Addr(), KeyPrefix: "turn:", Leases: true, HeartbeatInterval: time.Hour})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	rule := flow.Rule{Resource: "turn", Grade: flow.GradeQPS, Count: 300, ClusterMode: true,
		ClusterConfig: &flow.ClusterConfig{FlowID: 81, ThresholdType: thresholdGlobal, FallbackToLocalWhenFail: true, WindowIntervalMs: 1000}}

	ok, err := c.Check(context.Background(), &rule, 3)
	require.NoError(t, err)
	require.True(t, ok)
	l := c.leasesOf(81).cur.Load()
	require.NotNil(t, l)
	assert.Equal(t, int64(1000056000), l.window, "the window of Redis's clock")
	turn := sent + int64(359600*time.Microsecond)
	assert.Equal(t, turn, l.deadline.Load(), "the tokens die when the window turns, measured from when they were asked for")

	// Calls just before the turn spend the lease; a call at the turn does
	// not spend it, but asks Redis for the window it is in.
	// (Tokens enough that no prefetch asks meanwhile, once any in flight
	// has answered.)
	c.bg.Wait()
	asked := c.Stats().Leases
	l.tokens.Store(100)
	now.Store(turn - 1)
	ok, err = c.Check(context.Background(), &rule, 1)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, asked, c.Stats().Leases, "admitted from the lease, no round trip")
	assert.Equal(t, int64(99), l.tokens.Load())
	now.Store(turn)
	_, err = c.Check(context.Background(), &rule, 1)
	require.NoError(t, err)
	c.bg.Wait()
	assert.Equal(t, asked+1, c.Stats().Leases, "the last window's token is not spent at the turn: Redis is asked")
}
