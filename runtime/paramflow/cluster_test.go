package paramflow_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/stretchr/testify/assert"
)

// fakeCluster counts values against their thresholds, all or nothing, or
// fails.
type fakeCluster struct {
	mu    sync.Mutex
	used  map[string]int64
	fail  bool
	asked [][]paramflow.ClusterValue
	// shares, when failing, are the counts the local check is told to
	// apply to these values (others keep their own).
	shares map[string]int64
}

func (f *fakeCluster) CheckParams(_ context.Context, _ *paramflow.Rule, values []paramflow.ClusterValue, acquire int64) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, values)
	if f.fail {
		err := errors.New("token server down")
		if f.shares == nil {
			return false, err
		}
		counts := make([]int64, len(values))
		for i, v := range values {
			counts[i] = -1
			if n, ok := f.shares[v.Key]; ok {
				counts[i] = n
			}
		}
		return false, &paramflow.LocalCounts{Counts: counts, Err: err}
	}
	for _, v := range values {
		if f.used[v.Key]+acquire > v.Count {
			return false, nil
		}
	}
	for _, v := range values {
		f.used[v.Key] += acquire
	}
	return true, nil
}

func useCluster(t *testing.T, f *fakeCluster) {
	paramflow.SetClusterChecker(f)
	t.Cleanup(func() { paramflow.SetClusterChecker(nil) })
}

func clusterRule(res string, count float64, fallback bool) paramflow.Rule {
	r := paramflow.NewRule(res, 0, count)
	r.ClusterMode = true
	r.ClusterConfig = &paramflow.ClusterConfig{FlowID: 9, ThresholdType: 1, FallbackToLocalWhenFail: fallback}
	return r
}

func TestClusterCheckerCountsValues(t *testing.T) {
	f := &fakeCluster{used: map[string]int64{"s:hot": 1}} // another instance took one
	useCluster(t, f)
	withItem := clusterRule("pc-items", 2, true)
	withItem.ParamFlowItemList = []paramflow.Item{{Object: "7", ClassType: "int", Count: 4}}
	load(t, clusterRule("pc-strings", 2, true), withItem)

	assert.Equal(t, 1, run(3, "pc-strings", "hot"), "the cluster's count, 1 of 2 taken elsewhere")
	assert.Equal(t, 2, run(3, "pc-strings", "cold"))
	assert.Equal(t, 4, run(6, "pc-items", 7), "an item's count is its value's threshold")
	assert.Equal(t, []paramflow.ClusterValue{{Key: "i:7", Count: 4}}, f.asked[len(f.asked)-1])

	assert.True(t, passes("pc-strings", []string{"a", "b"}))
	assert.True(t, passes("pc-strings", []string{"a", "b"}))
	assert.False(t, passes("pc-strings", []string{"a", "c"}), "a is spent: all or nothing")
	assert.True(t, passes("pc-strings", []string{"c"}), "c was not counted by the refused call")

	f.mu.Lock()
	f.fail = true
	f.mu.Unlock()
	assert.Equal(t, 2, run(3, "pc-strings", "local"), "no answer: the local rule")
}

func TestClusterCheckerWithoutFallbackBlocks(t *testing.T) {
	f := &fakeCluster{used: map[string]int64{}, fail: true}
	useCluster(t, f)
	load(t, clusterRule("pc-strict", 5, false))
	assert.False(t, passes("pc-strict", "x"), "no answer and no fallback: blocked")
	type point struct{ x int }
	assert.False(t, passes("pc-strict", &point{1}), "a pointer has no shared text: as if no answer")
	paramflow.SetClusterChecker(nil)
	assert.True(t, passes("pc-strict", "x"), "no token server and no fallback: Java passes")
}

// With no answer, a checker may say which count each value's local check
// applies (this instance's share of the value's fleet-wide count): a
// value it names is checked against that, the others against their own.
func TestNoAnswerChecksEachValueAgainstTheCountTheClusterSays(t *testing.T) {
	f := &fakeCluster{used: map[string]int64{}, fail: true, shares: map[string]int64{"s:hot": 3}}
	useCluster(t, f)
	load(t, clusterRule("pc-shares", 10, true))
	assert.Equal(t, 3, run(12, "pc-shares", "hot"), "this instance's share of the hot value")
	assert.Equal(t, 10, run(12, "pc-shares", "cold"), "a value the checker does not name keeps its count")
	assert.False(t, passes("pc-shares", []string{"cold", "hot"}), "each value against its own count")
}
