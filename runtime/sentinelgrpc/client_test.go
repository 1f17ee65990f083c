package sentinelgrpc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/sentinelgen/sentinelgen/internal/ctxtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc/internal/testsvc"
)

func TestUnaryClientAdmitsAnOutboundRPCResourceNamedAfterTheFullMethod(t *testing.T) {
	handClock(t)
	rec := record(t)
	e := dialProtected(t)

	resp, err := e.unary(t.Context(), "hello", 0)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(resp.GetPayload().GetBody()))

	checks, exits := rec.seen(unaryCall)
	require.Len(t, checks, 1)
	require.Len(t, exits, 1, "the entry exits when the call returns")
	assert.Equal(t, runtime.Outbound, exits[0].Traffic)
	assert.Equal(t, runtime.RPC, exits[0].Type)
	assert.Equal(t, runtime.DefaultContextName, exits[0].Context, "outside any Sentinel context")
	assert.NoError(t, exits[0].Err)
}

func TestUnaryClientRefusesWithoutReachingTheNetwork(t *testing.T) {
	handClock(t)
	rec := record(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: unaryCall, Grade: flow.GradeQPS, Count: 1}}))
	e := dialProtected(t)

	_, err := e.unary(t.Context(), "a", 0)
	require.NoError(t, err)
	_, err = e.unary(t.Context(), "b", 0)
	require.Error(t, err)

	assert.Equal(t, codes.ResourceExhausted, status.Code(err))
	assert.Contains(t, status.Convert(err).Message(), "flow")
	assert.ErrorIs(t, err, runtime.ErrBlocked)
	var b *runtime.BlockError
	require.ErrorAs(t, err, &b)
	assert.Equal(t, runtime.BlockFlow, b.BlockType())
	assert.Equal(t, unaryCall, b.Resource())
	var blocked *sentinelgrpc.BlockedError
	require.ErrorAs(t, err, &blocked)

	lookups, _ := rec.seen(testsvc.LookupResource)
	assert.Len(t, lookups, 1, "the refused call never reached the server")
}

func TestUnaryClientFallbackAnswersRefusedCalls(t *testing.T) {
	handClock(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: unaryCall, Grade: flow.GradeQPS, Count: 0}}))
	e := dialProtected(t, sentinelgrpc.WithFallback(
		func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, b *runtime.BlockError) error {
			proto.Merge(reply.(proto.Message), &testgrpc.SimpleResponse{Payload: &testgrpc.Payload{Body: []byte("cached")}})
			return nil
		}))

	resp, err := e.unary(t.Context(), "x", 0)
	require.NoError(t, err)
	assert.Equal(t, "cached", string(resp.GetPayload().GetBody()))
}

func TestUnaryClientErrorsOpenABreakerThatRecovers(t *testing.T) {
	clock := handClock(t)
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: unaryCall, Grade: degrade.ErrorCount,
		Count: 2, MinRequestAmount: 3, TimeWindow: 5, StatIntervalMs: 10000}}))
	rec := record(t)
	e := dialProtected(t)

	for range 3 {
		_, err := e.unary(t.Context(), "x", int32(codes.Unavailable))
		require.Equal(t, codes.Unavailable, status.Code(err))
	}
	_, exits := rec.seen(unaryCall)
	require.Len(t, exits, 3)
	assert.Equal(t, codes.Unavailable, status.Code(exits[2].Err))

	_, err := e.unary(t.Context(), "x", 0)
	require.Equal(t, codes.ResourceExhausted, status.Code(err), "the breaker is open")
	require.ErrorIs(t, err, runtime.ErrBlocked)
	var b *runtime.BlockError
	require.ErrorAs(t, err, &b)
	assert.Equal(t, runtime.BlockDegrade, b.BlockType())
	lookups, _ := rec.seen(testsvc.LookupResource)
	assert.Len(t, lookups, 3, "an open breaker keeps calls off the network")

	clock.Advance(5 * time.Second)
	_, err = e.unary(t.Context(), "probe", 0)
	require.NoError(t, err, "the probe")
	for range 5 {
		_, err = e.unary(t.Context(), "x", 0)
		require.NoError(t, err, "closed again")
	}
}

func TestClientRecordsOnlyTheErrorCodesOfServerFailures(t *testing.T) {
	tests := []struct {
		name     string
		opts     []sentinelgrpc.ClientOption
		code     codes.Code
		recorded bool
	}{
		{name: "Unavailable", code: codes.Unavailable, recorded: true},
		{name: "Internal", code: codes.Internal, recorded: true},
		{name: "InvalidArgument", code: codes.InvalidArgument},
		{name: "ResourceExhausted from the server", code: codes.ResourceExhausted},
		{name: "a predicate replaces the default", code: codes.FailedPrecondition, recorded: true,
			opts: []sentinelgrpc.ClientOption{sentinelgrpc.WithErrorCode(func(c codes.Code) bool { return c == codes.FailedPrecondition })}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handClock(t)
			rec := record(t)
			e := dialProtected(t, tt.opts...)
			_, err := e.unary(t.Context(), "x", int32(tt.code))
			require.Equal(t, tt.code, status.Code(err))
			_, exits := rec.seen(unaryCall)
			require.Len(t, exits, 1)
			if tt.recorded {
				assert.Equal(t, tt.code, status.Code(exits[0].Err))
			} else {
				assert.NoError(t, exits[0].Err)
			}
		})
	}
}

func TestUnaryClientDoesNotRecordTheCallersCancellation(t *testing.T) {
	handClock(t)
	rec := record(t)
	e := dialProtected(t, sentinelgrpc.WithErrorCodes(codes.Canceled, codes.Unavailable))
	e.svc.Block = make(chan struct{})
	defer close(e.svc.Block)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := e.unary(ctx, "slow", 0); done <- err }()
	require.Eventually(t, func() bool { c, _ := rec.seen(testsvc.LookupResource); return len(c) == 1 },
		10*time.Second, time.Millisecond, "the server is working on the call")
	cancel()
	err := <-done
	require.Equal(t, codes.Canceled, status.Code(err))

	_, exits := rec.seen(unaryCall)
	require.Len(t, exits, 1)
	assert.NoError(t, exits[0].Err, "cancelling is the caller's choice, even with Canceled in the set")
}

func TestUnaryClientDoesNotRecordThePassedDeadlineOfItsCaller(t *testing.T) {
	clock := handClock(t)
	rec := record(t)
	e := dialProtected(t)
	e.svc.Block = make(chan struct{})
	defer close(e.svc.Block)

	// The deadline passes while the server works on the call: a real
	// 50 ms one could pass before the call left, on a loaded machine.
	ctx, pass := ctxtest.Deadline()
	defer pass()
	done := make(chan error, 1)
	go func() { _, err := e.unary(ctx, "slow", 0); done <- err }()
	require.Eventually(t, func() bool { c, _ := rec.seen(testsvc.LookupResource); return len(c) == 1 },
		10*time.Second, time.Millisecond, "the server is working on the call")
	pass()
	err := <-done
	require.Equal(t, codes.DeadlineExceeded, status.Code(err))
	_, exits := rec.seen(unaryCall)
	require.Len(t, exits, 1)
	assert.NoError(t, exits[0].Err, "the caller chose the deadline: not the server's failure")
	assert.Equal(t, 1.0, runtime.LookupResource(unaryCall).ClusterNode().SuccessQPS(clock.Millis()),
		"the call completed, and its response time counts")
}

// A front service's handler calls a healthy upstream with its own context,
// whose deadline its remote caller chose, against an upstream that
// takes longer. Those calls used to open the upstream's error-count breaker
// in the front service for every caller.
func TestAnInheritedDeadlineDoesNotOpenTheUpstreamsBreaker(t *testing.T) {
	handClock(t)
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: unaryCall, Grade: degrade.ErrorCount,
		Count: 2, MinRequestAmount: 1, TimeWindow: 60, StatIntervalMs: 60000}}))
	rec := record(t)
	upstream := dialProtected(t)
	upstream.svc.Block = make(chan struct{})
	ended := &rpcEnds{}
	front := serve(t, []grpc.ServerOption{grpc.StatsHandler(ended), grpc.ChainUnaryInterceptor(
		sentinelgrpc.UnaryServerInterceptor(),
		func(ctx context.Context, req any, info *grpc.UnaryServerInfo, _ grpc.UnaryHandler) (any, error) {
			_, err := upstream.unary(ctx, "forwarded", 0)
			return &testgrpc.Empty{}, err
		})})

	// The upstream never answers, so any deadline passes while its call is
	// in flight. On a loaded machine it can pass before the front's handler
	// ran: no upstream call then, and another is sent, until five were made.
	for sent := int64(1); ; sent++ {
		if checks, _ := rec.seen(unaryCall); len(checks) >= 5 {
			break
		}
		require.LessOrEqual(t, sent, int64(100), "calls sent for five to reach the upstream")
		ctx, cancel := context.WithTimeout(t.Context(), 250*time.Millisecond)
		_, err := front.client.EmptyCall(ctx, &testgrpc.Empty{})
		cancel()
		require.Equal(t, codes.DeadlineExceeded, status.Code(err), "call %d", sent)
		ended.wait(t, sent)
	}
	checks, exits := rec.seen(unaryCall)
	require.Len(t, exits, len(checks), "every upstream call exited")
	for _, c := range exits {
		assert.NoError(t, c.Err)
	}
	close(upstream.svc.Block)
	_, err := upstream.unary(t.Context(), "healthy", 0)
	require.NoError(t, err, "the upstream's breaker stays closed")
}

func TestUnaryClientCallFromAServerHandlerRunsInItsContext(t *testing.T) {
	handClock(t)
	rec := record(t)
	upstream := dialProtected(t)
	// A front server's method that calls upstream with its handler's
	// context, which carries the front's entry and its caller's origin.
	front := serve(t, []grpc.ServerOption{grpc.ChainUnaryInterceptor(
		sentinelgrpc.UnaryServerInterceptor(sentinelgrpc.WithOriginKey("s-user")),
		func(ctx context.Context, req any, info *grpc.UnaryServerInfo, _ grpc.UnaryHandler) (any, error) {
			_, err := upstream.unary(ctx, "forwarded", 0)
			return &testgrpc.Empty{}, err
		})})

	_, err := front.client.EmptyCall(metadata.AppendToOutgoingContext(t.Context(), "s-user", "frontend"), &testgrpc.Empty{})
	require.NoError(t, err)

	_, exits := rec.seen(unaryCall)
	require.Len(t, exits, 1)
	assert.Equal(t, "frontend", exits[0].Origin, "the outbound call is made in the inbound call's context")
	assert.Equal(t, runtime.Outbound, exits[0].Traffic)
	rec.waitExits(t, "/grpc.testing.TestService/EmptyCall", 1)
}

func TestClientHotParameterArgumentsComeFromTheRequest(t *testing.T) {
	handClock(t)
	require.NoError(t, paramflow.LoadRules([]paramflow.Rule{paramflow.NewRule(unaryCall, 0, 1)}))
	e := dialProtected(t, sentinelgrpc.WithArgs(func(ctx context.Context, method string, req any) []any {
		return []any{string(req.(*testgrpc.SimpleRequest).GetPayload().GetBody())}
	}))

	_, err := e.unary(t.Context(), "alice", 0)
	require.NoError(t, err)
	_, err = e.unary(t.Context(), "alice", 0)
	assert.Equal(t, codes.ResourceExhausted, status.Code(err))
	assert.True(t, errors.Is(err, runtime.ErrBlocked))
	_, err = e.unary(t.Context(), "bob", 0)
	assert.NoError(t, err)
}

func TestClientSeesTheServersRefusalAsBlocked(t *testing.T) {
	handClock(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: testsvc.LookupResource, Grade: flow.GradeQPS, Count: 0}}))
	e := serve(t, []grpc.ServerOption{grpc.ChainUnaryInterceptor(sentinelgrpc.UnaryServerInterceptor())},
		grpc.WithChainUnaryInterceptor(sentinelgrpc.UnaryClientInterceptor()))

	_, err := e.unary(t.Context(), "x", 0)
	require.Error(t, err)
	assert.Equal(t, codes.ResourceExhausted, status.Code(err))
	assert.ErrorIs(t, err, runtime.ErrBlocked)
	var blocked *sentinelgrpc.BlockedError
	require.ErrorAs(t, err, &blocked)
	assert.True(t, blocked.Remote)
	assert.Equal(t, runtime.BlockFlow, blocked.Block.BlockType())
	assert.Equal(t, testsvc.LookupResource, blocked.Block.Resource(), "the resource the server refused")
	assert.Contains(t, status.Convert(err).Message(), "flow")
}

func TestPlainClientGetsTheRefusalsDetail(t *testing.T) {
	handClock(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: unaryCall, Grade: flow.GradeQPS, Count: 0}}))
	e := serveProtected(t)

	_, err := e.unary(t.Context(), "x", 0)
	st := status.Convert(err)
	require.Equal(t, codes.ResourceExhausted, st.Code())
	require.Len(t, st.Details(), 1)
	info, ok := st.Details()[0].(*errdetails.ErrorInfo)
	require.True(t, ok)
	assert.Equal(t, sentinelgrpc.ErrorDomain, info.GetDomain())
	assert.Equal(t, sentinelgrpc.ErrorReason, info.GetReason())
	assert.Equal(t, map[string]string{"blockType": "flow", "resource": unaryCall}, info.GetMetadata())
}
