package dashboard_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/dashboard"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// blockingFor is a run in which resources block for different reasons,
// on the hand clock, one second at a time:
//
//   - search (inbound, web): a thread-count flow rule of 2, with 2 calls held in flight
//     for the whole run; 3 more calls a second are blocked;
//   - payment (outbound RPC): calls that fail, which open its error-count breaker in the
//     first second; 2 calls a second;
//   - stock (an outbound HTTP call, named as runtime/nethttp's Transport
//     names it): a cluster flow rule (global threshold 2 a second) with no
//     token server, so checked locally; 4 calls a second, 2 blocked;
//   - health (inbound, web): no rule at all, 3 calls a second: only observed.
type blockingFor struct {
	search, payment, stock, health string
	stockRule                      *flow.Rule
}

func runBlocking(t *testing.T, clk *clocktest.Clock, prefix string, seconds int) blockingFor {
	t.Helper()
	b := blockingFor{search: prefix + ".search", payment: prefix + ".payment",
		stock: "GET:http://" + prefix + ".inventory:8080/v1/stock", health: prefix + ".health"}
	runtime.Declare(runtime.ResourceSpec{Name: b.search, Traffic: runtime.Inbound, Type: runtime.Web})
	runtime.Declare(runtime.ResourceSpec{Name: b.health, Traffic: runtime.Inbound, Type: runtime.Web})
	runtime.Declare(runtime.ResourceSpec{Name: b.payment, Traffic: runtime.Outbound, Type: runtime.RPC})
	runtime.Declare(runtime.ResourceSpec{Name: b.stock, Traffic: runtime.Outbound, Type: runtime.Web})
	b.stockRule = &flow.Rule{Resource: b.stock, Grade: flow.GradeQPS, Count: 2, ClusterMode: true,
		ClusterConfig: &flow.ClusterConfig{FlowID: 7, ThresholdType: 1, FallbackToLocalWhenFail: true}}
	require.NoError(t, flow.LoadRules([]flow.Rule{
		{Resource: b.search, Grade: flow.GradeThread, Count: 2},
		*b.stockRule,
	}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	require.NoError(t, degrade.LoadRules([]degrade.Rule{
		{Resource: b.payment, Grade: degrade.ErrorCount, Count: 1, TimeWindow: 60, MinRequestAmount: 1},
	}))
	t.Cleanup(func() { _ = degrade.LoadRules(nil) })

	ctx := runtime.EnterContext(context.Background(), "dashboard_test", "")
	for range 2 { // the thread-count rule's two calls in flight
		e, blocked := runtime.Entry(ctx, b.search)
		require.Nil(t, blocked)
		t.Cleanup(func() { e.Exit() })
	}
	call := func(name string, n int, err error) {
		for range n {
			if e, blocked := runtime.Entry(ctx, name); blocked == nil {
				clk.Advance(5 * time.Millisecond)
				e.SetError(err)
				e.Exit()
			}
		}
	}
	for range seconds {
		call(b.search, 3, nil)
		call(b.payment, 2, errors.New("card declined"))
		call(b.stock, 4, nil)
		call(b.health, 3, nil)
		clk.Advance(time.Second - time.Duration(clk.Millis()%1000)*time.Millisecond)
	}
	return b
}

// Each resource's JSON says why it blocks: its blocks by kind of rule, the
// metric's figures, and the rule that blocked last as the block log writes
// it; and whether a rule protects it or it is only observed.
func TestResourcesSayWhyTheyBlock(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	run := runBlocking(t, clk, fresh("dashboard.why"), 3)
	srv := httptest.NewServer(dashboard.New())
	defer srv.Close()

	var s dashboard.Snapshot
	getJSON(t, srv, "/api/snapshot", &s)
	byName := map[string]dashboard.Resource{}
	for _, r := range s.Resources {
		byName[r.Name] = r
	}

	tests := []struct {
		name     string
		resource string
		blocks   map[string]int64
		typ      string
		ruleText []string
		cluster  bool
		observed bool
	}{
		{name: "a thread-count rule blocks the calls past its two in flight", resource: run.search,
			blocks: map[string]int64{"flow": 9}, typ: "flow",
			ruleText: []string{`flow rule {resource "` + run.search + `"`, "grade Thread", "count 2"}},
		{name: "an open breaker blocks every call", resource: run.payment,
			blocks: map[string]int64{"degrade": 4}, typ: "degrade",
			ruleText: []string{`degrade rule {resource "` + run.payment + `", error count above 1`}},
		{name: "a cluster rule checked locally blocks as a flow rule, marked cluster", resource: run.stock,
			blocks: map[string]int64{"flow": 6}, typ: "flow", cluster: true,
			ruleText: []string{`flow rule {resource "` + run.stock + `"`, "cluster mode"}},
		{name: "a resource no rule names is only observed", resource: run.health, observed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := byName[tt.resource]
			require.True(t, ok, "a card for %s", tt.resource)
			assert.Equal(t, !tt.observed, r.Protected)
			assert.Equal(t, tt.blocks, r.Blocks)
			if tt.typ == "" {
				assert.Nil(t, r.LastBlock)
				return
			}
			require.NotNil(t, r.LastBlock)
			assert.Equal(t, tt.typ, r.LastBlock.Type)
			assert.Equal(t, tt.cluster, r.LastBlock.Cluster)
			for _, want := range tt.ruleText {
				assert.Contains(t, r.LastBlock.Rule, want)
			}
			assert.Equal(t, clk.Millis()/1000*1000-1000, r.LastBlock.Second, "blocked in the last second of the run")
			for typ, n := range r.Blocks {
				res := runtime.LookupResource(tt.resource)
				assert.Equal(t, res.BlockCount(blockType(typ)), n, "the metric's figure")
			}
		})
	}
}

func blockType(name string) runtime.BlockType {
	for t := runtime.BlockFlow; t <= runtime.BlockCustom; t++ {
		if t.String() == name {
			return t
		}
	}
	return 0
}
