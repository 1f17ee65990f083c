package flow_test

import (
	"context"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func blockedBy(t *testing.T, ctx context.Context, resource string) *flow.Rule {
	t.Helper()
	e, b := runtime.Entry(ctx, resource)
	if b == nil {
		e.Exit()
		return nil
	}
	return b.Rule().(*flow.Rule)
}

// Java's FlowRuleComparator test: from [default10, originA, originB, other,
// default20] the order is [originA, originB, other, default10, default20].
// Rules with count 0 show which rule a call meets first.
func TestOriginOrderSpecificThenOtherThenDefault(t *testing.T) {
	load(t,
		flow.Rule{Resource: "order", Grade: flow.GradeQPS, Count: 0, LimitApp: "default"},
		flow.Rule{Resource: "order", Grade: flow.GradeQPS, Count: 0, LimitApp: "originA"},
		flow.Rule{Resource: "order", Grade: flow.GradeQPS, Count: 0, LimitApp: "originB"},
		flow.Rule{Resource: "order", Grade: flow.GradeQPS, Count: 0, LimitApp: "other"},
		flow.Rule{Resource: "order", Grade: flow.GradeQPS, Count: 0.5, LimitApp: "default"},
	)
	assert.Equal(t, "originA", blockedBy(t, from("originA"), "order").LimitApp)
	assert.Equal(t, "originB", blockedBy(t, from("originB"), "order").LimitApp)
	assert.Equal(t, "other", blockedBy(t, from("originC"), "order").LimitApp)
	r := blockedBy(t, context.Background(), "order")
	assert.Equal(t, "default", r.LimitApp)
	assert.Equal(t, 0.0, r.Count, "the first default rule in load order")
}

func TestOriginSelection(t *testing.T) {
	load(t,
		flow.Rule{Resource: "origins", Grade: flow.GradeQPS, Count: 2, LimitApp: "appA"},
		flow.Rule{Resource: "origins", Grade: flow.GradeQPS, Count: 1, LimitApp: "other"},
	)
	// appA is limited on its own statistics, to 2.
	assert.Equal(t, 2, calls(from("appA"), "origins", 5))
	// every other origin gets 1 of its own; "other" does not cover appA.
	assert.Equal(t, 1, calls(from("appB"), "origins", 5))
	assert.Equal(t, 1, calls(from("appC"), "origins", 5))
	// calls without an origin match neither rule.
	assert.Equal(t, 5, calls(context.Background(), "origins", 5))
}

func TestOriginDefaultCountsEveryCaller(t *testing.T) {
	load(t, qps("everyone", 3))
	assert.Equal(t, 1, calls(from("appA"), "everyone", 1))
	assert.Equal(t, 1, calls(from("appB"), "everyone", 1))
	assert.Equal(t, 1, calls(context.Background(), "everyone", 5))
}

func TestOriginThreadGradePerOrigin(t *testing.T) {
	load(t, flow.Rule{Resource: "origin-threads", Grade: flow.GradeThread, Count: 1, LimitApp: "other"})
	a, b := runtime.Entry(from("appA"), "origin-threads")
	require.Nil(t, b)
	_, b = runtime.Entry(from("appA"), "origin-threads")
	require.NotNil(t, b)
	bb, b := runtime.Entry(from("appB"), "origin-threads")
	require.Nil(t, b, "appB has its own count")
	a.Exit()
	bb.Exit()
	assert.True(t, call(from("appA"), "origin-threads"))
}

func TestRelateReadsTheRefResource(t *testing.T) {
	c := load(t, flow.Rule{Resource: "write", Grade: flow.GradeQPS, Count: 2, Strategy: flow.Relate, RefResource: "read"})
	ctx := context.Background()
	assert.Equal(t, 5, calls(ctx, "write", 5), "read was never called: Java passes")
	require.Equal(t, 1, calls(ctx, "read", 1))
	assert.Equal(t, 5, calls(ctx, "write", 5), "read's 1 + 1 <= 2")
	require.Equal(t, 1, calls(ctx, "read", 1))
	assert.Equal(t, 0, calls(ctx, "write", 5), "read's 2 + 1 > 2")
	c.Advance(time.Second)
	assert.Equal(t, 3, calls(ctx, "write", 3))
}

func TestRelateThreadGrade(t *testing.T) {
	load(t, flow.Rule{Resource: "consumer", Grade: flow.GradeThread, Count: 1, Strategy: flow.Relate, RefResource: "producer"})
	ctx := context.Background()
	p, b := runtime.Entry(ctx, "producer")
	require.Nil(t, b)
	assert.False(t, call(ctx, "consumer"))
	p.Exit()
	assert.True(t, call(ctx, "consumer"))
}

func TestChainAppliesOnlyInItsContext(t *testing.T) {
	load(t, flow.Rule{Resource: "shared", Grade: flow.GradeQPS, Count: 1, Strategy: flow.Chain, RefResource: "entrance-a"})
	inA := runtime.EnterContext(context.Background(), "entrance-a", "")
	inB := runtime.EnterContext(context.Background(), "entrance-b", "")
	assert.Equal(t, 1, calls(inA, "shared", 3))
	assert.Equal(t, 3, calls(inB, "shared", 3), "another context is not limited")
	assert.Equal(t, 3, calls(context.Background(), "shared", 3))
	// the rule reads the resource's node in entrance-a only.
	now := runtime.NowMillis()
	assert.Equal(t, 1.0, runtime.LookupResource("shared").Node("entrance-a").PassQPS(now))
}

func TestChainWithOrigin(t *testing.T) {
	load(t, flow.Rule{Resource: "chain-origin", Grade: flow.GradeQPS, Count: 1, Strategy: flow.Chain, RefResource: "entrance-o", LimitApp: "appA"})
	inA := runtime.EnterContext(context.Background(), "entrance-o", "appA")
	assert.Equal(t, 1, calls(inA, "chain-origin", 3))
}

func TestRegexRulesMatchWholeNamesAndCountPerResource(t *testing.T) {
	load(t, flow.Rule{Resource: "/api/.*", Regex: true, Grade: flow.GradeQPS, Count: 2})
	ctx := context.Background()
	assert.Equal(t, 2, calls(ctx, "/api/order", 5))
	assert.Equal(t, 2, calls(ctx, "/api/user", 5), "each matching resource has its own count")
	assert.Equal(t, 5, calls(ctx, "/v2/api/order", 5), "a partial match does not apply")
}

func TestClusterModeFallsBackToLocal(t *testing.T) {
	load(t,
		flow.Rule{Resource: "cluster-local", Grade: flow.GradeQPS, Count: 1, ClusterMode: true,
			ClusterConfig: &flow.ClusterConfig{FlowID: 1, FallbackToLocalWhenFail: true}},
		flow.Rule{Resource: "cluster-pass", Grade: flow.GradeQPS, Count: 0, ClusterMode: true,
			ClusterConfig: &flow.ClusterConfig{FlowID: 2}},
	)
	ctx := context.Background()
	assert.Equal(t, 1, calls(ctx, "cluster-local", 3), "no token server: checked locally")
	assert.Equal(t, 3, calls(ctx, "cluster-pass", 3), "no token server and no fallback: Java passes")
}

func TestClusterRulesComeLast(t *testing.T) {
	load(t,
		flow.Rule{Resource: "cluster-order", Grade: flow.GradeQPS, Count: 0, ClusterMode: true,
			ClusterConfig: &flow.ClusterConfig{FlowID: 1, FallbackToLocalWhenFail: true}},
		flow.Rule{Resource: "cluster-order", Grade: flow.GradeQPS, Count: 0},
	)
	assert.False(t, blockedBy(t, context.Background(), "cluster-order").ClusterMode)
}

func TestRelateToADeclaredResourceReadsZero(t *testing.T) {
	runtime.Declare(runtime.ResourceSpec{Name: "declared-ref"})
	load(t,
		flow.Rule{Resource: "relate-zero", Grade: flow.GradeQPS, Count: 0, Strategy: flow.Relate, RefResource: "declared-ref"},
		flow.Rule{Resource: "relate-one", Grade: flow.GradeQPS, Count: 1, Strategy: flow.Relate, RefResource: "declared-ref"},
		flow.Rule{Resource: "relate-unknown", Grade: flow.GradeQPS, Count: 0, Strategy: flow.Relate, RefResource: "never-declared"},
	)
	ctx := context.Background()
	assert.False(t, call(ctx, "relate-zero"), "0 + 1 > 0")
	assert.Equal(t, 3, calls(ctx, "relate-one", 3), "0 + 1 <= 1, whatever relate-one itself passes")
	assert.True(t, call(ctx, "relate-unknown"), "no node: Java passes")
}
