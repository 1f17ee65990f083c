package sentinelkitex_test

import (
	"context"
	"testing"

	"github.com/cloudwego/kitex/pkg/rpcinfo"
	"github.com/stretchr/testify/assert"

	sentinelkitex "github.com/sentinelgen/sentinelgen/adapters/kitex"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// An admitted call costs the adapter one allocation, the entry (with the
// Sentinel context of an origin in it); a refused one costs no more.
func TestAdmittedAndRefusedCallsAllocateOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	clocktest.Install(t)
	ep := func(ctx context.Context, req, resp any) error { return nil }
	origin := func(context.Context, rpcinfo.RPCInfo) string { return "billing" }
	ctx := serverContext()
	for _, tc := range []struct {
		name string
		opts []sentinelkitex.Option
	}{
		{"without origin", nil},
		{"with origin", []sentinelkitex.Option{sentinelkitex.WithOriginParser(origin)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := sentinelkitex.ServerMiddleware(tc.opts...)(ep)
			call := func() { _ = h(ctx, nil, nil) }
			call()
			admitted := testing.AllocsPerRun(100, call)
			assert.Equal(t, 1.0, admitted, "admitted")

			loadFlow(t, flow.Rule{Resource: getOrder, Grade: flow.GradeQPS, Count: 0})
			call()
			refused := testing.AllocsPerRun(100, call)
			assert.Equal(t, 1.0, refused, "refused")
		})
	}
}

// The client middleware, too, costs an admitted call one allocation, the
// entry, and a refused one no more.
func TestClientCallsAllocateOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	clocktest.Install(t)
	h := sentinelkitex.ClientMiddleware()(func(ctx context.Context, req, resp any) error { return nil })
	ri := rpcinfo.NewRPCInfo(rpcinfo.EmptyEndpointInfo(), rpcinfo.NewEndpointInfo("OrderService", "GetOrder", nil, nil),
		rpcinfo.NewInvocation("OrderService", "GetOrder"), rpcinfo.NewRPCConfig(), rpcinfo.NewRPCStats())
	ctx := rpcinfo.NewCtxWithRPCInfo(context.Background(), ri)
	call := func() { _ = h(ctx, nil, nil) }
	call()
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, call), "admitted")

	loadFlow(t, flow.Rule{Resource: getOrder, Grade: flow.GradeQPS, Count: 0})
	assert.ErrorIs(t, h(ctx, nil, nil), runtime.ErrBlocked)
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, call), "refused")
}
