package flow_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
)

// fakeCluster answers cluster checks from a shared budget, or fails.
type fakeCluster struct {
	budget atomic.Int64
	fail   atomic.Bool
	calls  atomic.Int64
}

func (f *fakeCluster) Check(_ context.Context, rule *flow.Rule, acquire int64) (bool, error) {
	f.calls.Add(1)
	if f.fail.Load() {
		return false, errors.New("token server down")
	}
	if f.budget.Add(-acquire) < 0 {
		f.budget.Add(acquire)
		return false, nil
	}
	return true, nil
}

func useCluster(t *testing.T, f *fakeCluster) {
	flow.SetClusterChecker(f)
	t.Cleanup(func() { flow.SetClusterChecker(nil) })
}

func TestClusterCheckerDecidesClusterRules(t *testing.T) {
	f := &fakeCluster{}
	f.budget.Store(2)
	useCluster(t, f)
	cc := func(fallback bool) *flow.ClusterConfig {
		return &flow.ClusterConfig{FlowID: 1, ThresholdType: 1, FallbackToLocalWhenFail: fallback}
	}
	load(t,
		flow.Rule{Resource: "cc-fallback", Grade: flow.GradeQPS, Count: 3, ClusterMode: true, ClusterConfig: cc(true)},
		flow.Rule{Resource: "cc-strict", Grade: flow.GradeQPS, Count: 3, ClusterMode: true, ClusterConfig: cc(false)},
		flow.Rule{Resource: "cc-threads", Grade: flow.GradeThread, Count: 3, ClusterMode: true, ClusterConfig: cc(true)},
		flow.Rule{Resource: "cc-local", Grade: flow.GradeQPS, Count: 3},
	)
	ctx := context.Background()

	assert.Equal(t, 2, calls(ctx, "cc-fallback", 5), "the cluster's budget, not the local count 3")
	assert.Equal(t, 3, calls(ctx, "cc-local", 5), "local rules never ask the cluster")
	assert.Equal(t, 5, calls(ctx, "cc-threads", 5), "thread-grade cluster rules stay local (sequential calls hold no threads)")
	assert.Equal(t, int64(5), f.calls.Load())

	f.fail.Store(true)
	assert.Equal(t, 1, calls(ctx, "cc-fallback", 5), "no answer: the local rule (3 per second, 2 already passed)")
	assert.Equal(t, 0, calls(ctx, "cc-strict", 5), "no answer and no fallback: blocked")
}

func TestClusterCheckerRemovedGoesBackToLocal(t *testing.T) {
	f := &fakeCluster{}
	useCluster(t, f)
	load(t, flow.Rule{Resource: "cc-removed", Grade: flow.GradeQPS, Count: 1, ClusterMode: true,
		ClusterConfig: &flow.ClusterConfig{FlowID: 1, FallbackToLocalWhenFail: false}})
	ctx := context.Background()
	assert.Equal(t, 0, calls(ctx, "cc-removed", 2), "the cluster has no budget")
	flow.SetClusterChecker(nil)
	assert.Equal(t, 2, calls(ctx, "cc-removed", 2), "no token server and no fallback: Java passes")
}

func TestClusterCheckerSetAndRemovedAroundBoundRules(t *testing.T) {
	f := &fakeCluster{}
	f.budget.Store(100)
	useCluster(t, f)
	load(t, flow.Rule{Resource: "cc-toggle", Grade: flow.GradeQPS, Count: 2, ClusterMode: true,
		ClusterConfig: &flow.ClusterConfig{FlowID: 1, FallbackToLocalWhenFail: true}})
	ctx := context.Background()
	assert.Equal(t, 3, calls(ctx, "cc-toggle", 3), "bound with the checker")
	flow.SetClusterChecker(nil)
	assert.Equal(t, 0, calls(ctx, "cc-toggle", 3), "rebound without: local, 3 already passed this second")
	flow.SetClusterChecker(f)
	assert.Equal(t, 3, calls(ctx, "cc-toggle", 3), "and with it again")
}

// shareCluster never answers, and says the local fallback checks count.
type shareCluster struct{ count float64 }

func (s shareCluster) Check(context.Context, *flow.Rule, int64) (bool, error) {
	return false, fmt.Errorf("redis down: %w", &flow.LocalCount{Count: s.count, Err: errors.New("connection refused")})
}

// A checker that cannot answer used to leave the slot checking the rule's
// whole count on every instance (three instances of a global 6/s: 18/s).
// A *LocalCount says which count the fallback checks: this instance's
// share, 2 of 6 here; without one, the rule's count as before.
func TestClusterFallbackChecksTheCountTheCheckerSays(t *testing.T) {
	flow.SetClusterChecker(shareCluster{count: 2})
	t.Cleanup(func() { flow.SetClusterChecker(nil) })
	cc := func() *flow.ClusterConfig {
		return &flow.ClusterConfig{FlowID: 1, ThresholdType: 1, FallbackToLocalWhenFail: true}
	}
	clk := load(t,
		flow.Rule{Resource: "share-reject", Grade: flow.GradeQPS, Count: 6, ClusterMode: true, ClusterConfig: cc()},
		flow.Rule{Resource: "share-warm", Grade: flow.GradeQPS, Count: 30, ClusterMode: true, ClusterConfig: cc(),
			ControlBehavior: flow.WarmUp, WarmUpPeriodSec: 10},
	)
	ctx := context.Background()
	assert.Equal(t, 2, calls(ctx, "share-reject", 10), "the share, 2 of 6")
	// Warm-up from cold admits about count/coldFactor a second: on a
	// share of 2, 0.67, so nothing in the first second.
	assert.Equal(t, 0, calls(ctx, "share-warm", 20), "the warm-up controller of the share, not of 30")
	clk.Advance(time.Second)
	assert.Equal(t, 2, calls(ctx, "share-reject", 10), "the next second, 2 again")

	f := &fakeCluster{}
	f.fail.Store(true)
	flow.SetClusterChecker(f)
	clk.Advance(time.Second)
	assert.Equal(t, 6, calls(ctx, "share-reject", 10), "no LocalCount: the rule's count")
}

// recoveringCluster admits every call but asks the local check too.
type recoveringCluster struct{ count float64 }

func (r recoveringCluster) Check(context.Context, *flow.Rule, int64) (bool, error) {
	return true, &flow.LocalCount{Count: r.count}
}

// In the window an outage ends in, the cluster's admission is not enough:
// the calls admitted locally in it were never counted in the cluster.
func TestClusterAdmissionCanAskTheLocalCheckToo(t *testing.T) {
	flow.SetClusterChecker(recoveringCluster{count: 2})
	t.Cleanup(func() { flow.SetClusterChecker(nil) })
	load(t, flow.Rule{Resource: "recovering", Grade: flow.GradeQPS, Count: 6, ClusterMode: true,
		ClusterConfig: &flow.ClusterConfig{FlowID: 1, ThresholdType: 1, FallbackToLocalWhenFail: true}})
	assert.Equal(t, 2, calls(context.Background(), "recovering", 10), "admitted by the cluster, within the local share")
}
