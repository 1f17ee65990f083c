package cluster_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime/cluster"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

func withLeases(cfg *cluster.Config) { cfg.Leases = true }

// Two leasing clients share one window of a minute: together they are
// admitted exactly the count, most calls without a round trip.
func TestLeasesAdmitExactlyTheCount(t *testing.T) {
	s := testserver.StartRedis(t)
	a := newClient(t, s, "lease:", withLeases)
	b := newClient(t, s, "lease:", withLeases)
	rule := clusterRule("lease", 50, 41, 1, 1, 60000)
	ctx := context.Background()
	admitted := 0
	for i := range 200 {
		c := a
		if i%3 == 0 {
			c = b
		}
		ok, err := c.Check(ctx, &rule, 1)
		require.NoError(t, err)
		if ok {
			admitted++
		}
	}
	assert.Equal(t, 50, admitted, "never over the count; the rest refused without asking once a window is spent")
	st := a.Stats()
	t.Logf("a: %+v", st)
	t.Logf("b: %+v", b.Stats())
	assert.Less(t, a.Stats().Leases+b.Stats().Leases, int64(30), "batches, not a round trip per call")
	_ = time.Second
}

// Hot-parameter values are leased per value: two leasing clients share
// each value's count exactly, a call of two values is admitted all or
// nothing, and most calls cost no round trip.
func TestParamLeasesAreExactPerValue(t *testing.T) {
	s := testserver.StartRedis(t)
	a := newClient(t, s, "plea:", withLeases)
	b := newClient(t, s, "plea:", withLeases)
	rule := paramflow.NewRule("param.lease", 0, 20)
	rule.ClusterMode = true
	rule.ClusterConfig = &paramflow.ClusterConfig{FlowID: 42, ThresholdType: 1, SampleCount: 1, WindowIntervalMs: 60000}
	ctx := context.Background()
	v := func(keys ...string) []paramflow.ClusterValue {
		out := make([]paramflow.ClusterValue, len(keys))
		for i, k := range keys {
			out[i] = paramflow.ClusterValue{Key: k, Count: 20}
		}
		return out
	}
	admitted := map[string]int{}
	for i := range 120 {
		c := a
		if i%2 == 1 {
			c = b
		}
		vals := v("i:1")
		if i%3 == 0 {
			vals = v("i:1", "i:2")
		}
		ok, err := c.CheckParams(ctx, &rule, vals, 1)
		require.NoError(t, err)
		if ok {
			for _, x := range vals {
				admitted[x.Key]++
			}
		}
	}
	assert.Equal(t, 20, admitted["i:1"], "value 1: never over its count")
	assert.LessOrEqual(t, admitted["i:2"], 20)
	assert.Positive(t, admitted["i:2"])
	st := a.Stats()
	assert.Less(t, st.Leases+b.Stats().Leases, int64(40), "batches, not a round trip per call: %+v %+v", st, b.Stats())
	n, err := s.Client(t).HGet(ctx, "plea:lease:param:42:i:1", "n").Int64()
	require.NoError(t, err)
	assert.LessOrEqual(t, n, int64(20), "leased from Redis: never over the count")
}

// Callers choose argument values: past MaxParamLeases values with live
// leases, a new value costs a lease request of just its call's tokens per
// call (still exactly).
func TestParamLeaseTableIsBounded(t *testing.T) {
	s := testserver.StartRedis(t)
	c := newClient(t, s, "pbound:", withLeases)
	rule := paramflow.NewRule("param.bound", 0, 1)
	rule.ClusterMode = true
	rule.ClusterConfig = &paramflow.ClusterConfig{FlowID: 43, ThresholdType: 1, SampleCount: 1, WindowIntervalMs: 60000}
	ctx := context.Background()
	for i := range cluster.MaxParamLeases + 50 {
		ok, err := c.CheckParams(ctx, &rule, []paramflow.ClusterValue{{Key: "i:" + strconv.Itoa(i), Count: 1}}, 1)
		require.NoError(t, err)
		require.True(t, ok, "value %d's first call", i)
	}
	st := c.Stats()
	assert.EqualValues(t, cluster.MaxParamLeases+50, st.Leases, "one lease request per value, held up to the cap")
	assert.EqualValues(t, cluster.MaxParamLeases+50, st.Answered, "no other round trip")
	ok, err := c.CheckParams(ctx, &rule, []paramflow.ClusterValue{{Key: "i:" + strconv.Itoa(cluster.MaxParamLeases+10), Count: 1}}, 1)
	require.NoError(t, err)
	assert.False(t, ok, "past the cap the count still holds")
}

// Once an instance's lease table is full, a value it holds no lease for
// is still counted against the same fleet-wide figure as the leases other
// instances hold for it: a value limited to 10 a window is admitted 10
// times across the fleet, not 10 on each path.
func TestFullLeaseTableCountsAgainstTheFleetsLeases(t *testing.T) {
	s := testserver.StartRedis(t)
	full := newClient(t, s, "pfull:", withLeases)
	other := newClient(t, s, "pfull:", withLeases)
	rule := paramflow.NewRule("param.full", 0, 10)
	rule.ClusterMode = true
	rule.ClusterConfig = &paramflow.ClusterConfig{FlowID: 44, ThresholdType: 1, SampleCount: 1, WindowIntervalMs: 60000}
	ctx := context.Background()
	// Fill full's table with live leases, 100 values a call.
	for i := 0; i < cluster.MaxParamLeases; i += 100 {
		vals := make([]paramflow.ClusterValue, 100)
		for j := range vals {
			vals[j] = paramflow.ClusterValue{Key: "i:" + strconv.Itoa(i+j), Count: 10}
		}
		_, err := full.CheckParams(ctx, &rule, vals, 1)
		require.NoError(t, err)
	}
	hot := []paramflow.ClusterValue{{Key: "s:hot", Count: 10}}
	admitted := 0
	for range 20 {
		for _, c := range []*cluster.Client{other, full} {
			ok, err := c.CheckParams(ctx, &rule, hot, 1)
			require.NoError(t, err)
			if ok {
				admitted++
			}
		}
	}
	assert.Equal(t, 10, admitted, "one fleet-wide figure for the value, whichever path checked it")
}

// Close gives a lease's unused tokens back to its window: what one
// instance leased and did not spend is the rest of the fleet's to admit
// in the same window.
func TestCloseGivesUnusedTokensBack(t *testing.T) {
	s := testserver.StartRedis(t)
	a, err := cluster.New(cluster.Config{Addr: s.Addr(), KeyPrefix: "giveback:", Leases: true,
		HeartbeatInterval: 200 * time.Millisecond, InstanceTTL: time.Second, Timeout: 300 * time.Millisecond})
	require.NoError(t, err)
	b := newClient(t, s, "giveback:", withLeases)
	rule := clusterRule("giveback", 50, 45, 1, 1, 60000)
	ctx := context.Background()
	for range 20 {
		ok, err := a.Check(ctx, &rule, 1)
		require.NoError(t, err)
		require.True(t, ok)
	}
	leased, err := s.Client(t).HGet(ctx, "giveback:lease:45", "n").Int64()
	require.NoError(t, err)
	require.Greater(t, leased, int64(20), "a holds tokens it has not spent")
	require.NoError(t, a.Close())

	admitted := 0
	for range 100 {
		ok, err := b.Check(ctx, &rule, 1)
		require.NoError(t, err)
		if ok {
			admitted++
		}
	}
	assert.Equal(t, 30, admitted, "the count less what a spent, nothing lost with a's lease")
}

// While Redis does not answer, each value of a global hot-parameter rule
// is checked locally against this instance's share of its count: the
// share of the value's demand its lease requests last saw, so the busier
// instance of a value keeps most of it and the fleet stays near the
// value's count.
func TestHotValuesFallBackToTheirDemandShare(t *testing.T) {
	s := testserver.StartRedis(t)
	a := newClient(t, s, "pshare:", withLeases)
	b := newClient(t, s, "pshare:", withLeases)
	require.Eventually(t, func() bool { return a.Stats().Live == 2 && b.Stats().Live == 2 }, 2*time.Second, 10*time.Millisecond)
	rule := paramflow.NewRule("param.share", 0, 100)
	rule.ClusterMode = true
	rule.ClusterConfig = &paramflow.ClusterConfig{FlowID: 46, ThresholdType: 1, SampleCount: 1, WindowIntervalMs: 60000,
		FallbackToLocalWhenFail: true}
	ctx := context.Background()
	hot := []paramflow.ClusterValue{{Key: "s:hot", Count: 100}}
	// The demand is seen under a count it cannot reach: leases a and b
	// hold unspent could otherwise refuse the last calls.
	roomy := []paramflow.ClusterValue{{Key: "s:hot", Count: 1000}}
	for i := range 80 {
		c := a
		if i%4 == 3 {
			c = b
		}
		ok, err := c.CheckParams(ctx, &rule, roomy, 1)
		require.NoError(t, err)
		require.True(t, ok)
	}
	s.Kill()

	share := func(c *cluster.Client) int64 {
		var err error
		for !c.Stats().BreakerOpen { // checks failing before it opens refuse
			_, err = c.CheckParams(ctx, &rule, hot, 1000) // more than a lease holds: asks Redis
		}
		_, err = c.CheckParams(ctx, &rule, hot, 1000)
		var lc *paramflow.LocalCounts
		require.ErrorAs(t, err, &lc)
		require.Len(t, lc.Counts, 1)
		return lc.Counts[0]
	}

	ca, cb := share(a), share(b)
	t.Logf("fallback counts of the hot value: %d (3/4 of its calls) and %d (1/4)", ca, cb)
	assert.Greater(t, ca, 2*cb, "the busier instance keeps the larger share")
	assert.GreaterOrEqual(t, ca+cb, int64(90), "the fleet near the value's count")
	assert.LessOrEqual(t, ca+cb, int64(125+2), "never much above it")

	_, err := a.CheckParams(ctx, &rule, []paramflow.ClusterValue{{Key: "s:new", Count: 100}}, 1)
	var lc *paramflow.LocalCounts
	require.ErrorAs(t, err, &lc)
	assert.Equal(t, []int64{50}, lc.Counts, "a value with no demand seen: an even share")
}
