package sentinelgrpc_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/internal/ctxtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc/internal/testsvc"
)

func payload(body string) *testgrpc.Payload { return &testgrpc.Payload{Body: []byte(body)} }

func threads(name string) int64 { return runtime.LookupResource(name).ClusterNode().Threads() }

func TestStreamClientServerStreamingExitsOnceAtEOF(t *testing.T) {
	handClock(t)
	rec := record(t)
	e := dialProtected(t)

	stream, err := e.client.StreamingOutputCall(t.Context(), &testgrpc.StreamingOutputCallRequest{
		Payload: payload("m"), ResponseParameters: []*testgrpc.ResponseParameters{{}, {}, {}}})
	require.NoError(t, err)
	for range 3 {
		_, err := stream.Recv()
		require.NoError(t, err)
		_, exits := rec.seen(outputCall)
		assert.Empty(t, exits, "open while messages come")
		assert.EqualValues(t, 1, threads(outputCall))
	}
	_, err = stream.Recv()
	require.ErrorIs(t, err, io.EOF)
	_, err = stream.Recv()
	require.ErrorIs(t, err, io.EOF)

	checks, exits := rec.seen(outputCall)
	assert.Len(t, checks, 1)
	require.Len(t, exits, 1, "exited once, at io.EOF")
	assert.NoError(t, exits[0].Err)
	assert.Equal(t, runtime.Outbound, exits[0].Traffic)
	assert.EqualValues(t, 0, threads(outputCall))
}

func TestStreamClientClientStreamingExitsOnceAtTheResponse(t *testing.T) {
	handClock(t)
	rec := record(t)
	e := dialProtected(t)

	stream, err := e.client.StreamingInputCall(t.Context())
	require.NoError(t, err)
	for _, body := range []string{"ab", "cde"} {
		require.NoError(t, stream.Send(&testgrpc.StreamingInputCallRequest{Payload: payload(body)}))
	}
	_, exits := rec.seen(inputCall)
	assert.Empty(t, exits)
	resp, err := stream.CloseAndRecv()
	require.NoError(t, err)
	assert.EqualValues(t, 5, resp.GetAggregatedPayloadSize())

	_, exits = rec.seen(inputCall)
	require.Len(t, exits, 1, "the one response ends the stream")
	assert.NoError(t, exits[0].Err)
	assert.EqualValues(t, 0, threads(inputCall))
}

func TestStreamClientExitsOnceWithTheServersError(t *testing.T) {
	handClock(t)
	rec := record(t)
	e := dialProtected(t)

	stream, err := e.client.FullDuplexCall(t.Context())
	require.NoError(t, err)
	require.NoError(t, stream.Send(&testgrpc.StreamingOutputCallRequest{Payload: payload("a")}))
	_, err = stream.Recv()
	require.NoError(t, err)
	require.NoError(t, stream.Send(&testgrpc.StreamingOutputCallRequest{ResponseStatus: &testgrpc.EchoStatus{Code: int32(codes.Internal)}}))
	_, err = stream.Recv()
	require.Equal(t, codes.Internal, status.Code(err))
	// Further calls see the same end and exit nothing again.
	_, err = stream.Recv()
	require.Error(t, err)
	_ = stream.Send(&testgrpc.StreamingOutputCallRequest{})

	_, exits := rec.seen(duplexCall)
	require.Len(t, exits, 1)
	assert.Equal(t, codes.Internal, status.Code(exits[0].Err))
	assert.EqualValues(t, 0, threads(duplexCall))
}

func TestStreamClientExitsOnceWhenTheCallersContextEnds(t *testing.T) {
	tests := []struct {
		name     string
		ctx      func(t *testing.T) (context.Context, func()) // the caller's context, and its end
		ended    codes.Code                                   // what the caller reads then
		recorded codes.Code                                   // codes.OK: nothing recorded
	}{
		{name: "cancelled by the caller: not recorded", ended: codes.Canceled,
			ctx: func(t *testing.T) (context.Context, func()) { return context.WithCancel(t.Context()) }},
		// The deadline passes once the stream is under way: a real 50 ms
		// one could pass before the first answer on a loaded machine.
		{name: "deadline passed: not recorded", ended: codes.DeadlineExceeded,
			ctx: func(*testing.T) (context.Context, func()) { return ctxtest.Deadline() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handClock(t)
			rec := record(t)
			e := dialProtected(t)

			ctx, end := tt.ctx(t)
			defer end()
			stream, err := e.client.FullDuplexCall(ctx)
			require.NoError(t, err)
			require.NoError(t, stream.Send(&testgrpc.StreamingOutputCallRequest{Payload: payload("a")}))
			_, err = stream.Recv()
			require.NoError(t, err)
			end()
			// The caller does not read on: the context alone ends the entry.
			exits := rec.waitExits(t, duplexCall, 1)
			if tt.recorded == codes.OK {
				assert.NoError(t, exits[0].Err)
			} else {
				assert.Equal(t, tt.recorded, status.Code(exits[0].Err))
			}
			_, err = stream.Recv()
			assert.Equal(t, tt.ended, status.Code(err), "%v", err)
			_, exits = rec.seen(duplexCall)
			assert.Len(t, exits, 1, "reading the error later exits nothing again")
			assert.EqualValues(t, 0, threads(duplexCall))
		})
	}
}

func TestStreamClientRefusesWithoutOpeningTheStream(t *testing.T) {
	handClock(t)
	rec := record(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: duplexCall, Grade: flow.GradeQPS, Count: 0}}))
	e := dialProtected(t)

	stream, err := e.client.FullDuplexCall(t.Context())
	require.Error(t, err)
	assert.Nil(t, stream)
	assert.Equal(t, codes.ResourceExhausted, status.Code(err))
	assert.Contains(t, status.Convert(err).Message(), "flow")
	assert.ErrorIs(t, err, runtime.ErrBlocked)
	echoes, _ := rec.seen(testsvc.EchoResource)
	assert.Empty(t, echoes)
}

func TestStreamClientFallbackAnswersRefusedStreams(t *testing.T) {
	handClock(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: duplexCall, Grade: flow.GradeQPS, Count: 0}}))
	e := dialProtected(t, sentinelgrpc.WithStreamFallback(
		func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, b *runtime.BlockError) (grpc.ClientStream, error) {
			return nil, status.Error(codes.Unavailable, "fallback for "+method)
		}))

	_, err := e.client.FullDuplexCall(t.Context())
	assert.Equal(t, codes.Unavailable, status.Code(err))
	assert.Contains(t, err.Error(), "fallback for "+duplexCall)
}

func TestStreamClientErrorsOpenABreakerThatRecovers(t *testing.T) {
	clock := handClock(t)
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: outputCall, Grade: degrade.ErrorCount,
		Count: 1, MinRequestAmount: 2, TimeWindow: 3, StatIntervalMs: 10000}}))
	e := dialProtected(t)
	callOnce := func(code codes.Code) error {
		stream, err := e.client.StreamingOutputCall(t.Context(), &testgrpc.StreamingOutputCallRequest{
			ResponseStatus: &testgrpc.EchoStatus{Code: int32(code)}})
		if err != nil {
			return err
		}
		_, err = stream.Recv()
		if err == io.EOF {
			return nil
		}
		return err
	}

	for range 2 {
		require.Equal(t, codes.Unavailable, status.Code(callOnce(codes.Unavailable)))
	}
	err := callOnce(codes.OK)
	require.Equal(t, codes.ResourceExhausted, status.Code(err), "two errors over a count of 1 open the breaker")
	require.ErrorIs(t, err, runtime.ErrBlocked)

	clock.Advance(3 * time.Second)
	require.NoError(t, callOnce(codes.OK), "the probe")
	require.NoError(t, callOnce(codes.OK), "closed again")
}

func TestStreamClientNeverLeavesAnEntryOpenAcrossManyStreams(t *testing.T) {
	handClock(t)
	rec := record(t)
	e := dialProtected(t)
	for i := range 20 {
		ctx, cancel := context.WithCancel(t.Context())
		stream, err := e.client.FullDuplexCall(ctx)
		require.NoError(t, err)
		require.NoError(t, stream.Send(&testgrpc.StreamingOutputCallRequest{Payload: payload("x")}))
		_, err = stream.Recv()
		require.NoError(t, err)
		if i%2 == 0 {
			require.NoError(t, stream.CloseSend())
			_, err = stream.Recv()
			require.ErrorIs(t, err, io.EOF)
		}
		cancel()
	}
	exits := rec.waitExits(t, duplexCall, 20)
	assert.Len(t, exits, 20, "one exit per stream")
	assert.EqualValues(t, 0, threads(duplexCall))
}

func TestStreamClientSeesTheServersRefusalAsBlocked(t *testing.T) {
	handClock(t)
	rec := record(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: testsvc.ProduceResource, Grade: flow.GradeQPS, Count: 0}}))
	e := serve(t, []grpc.ServerOption{grpc.ChainStreamInterceptor(sentinelgrpc.StreamServerInterceptor())},
		grpc.WithChainStreamInterceptor(sentinelgrpc.StreamClientInterceptor()))

	stream, err := e.client.StreamingOutputCall(t.Context(), &testgrpc.StreamingOutputCallRequest{
		ResponseParameters: []*testgrpc.ResponseParameters{{}}})
	require.NoError(t, err)
	_, err = stream.Recv()
	assert.Equal(t, codes.ResourceExhausted, status.Code(err))
	assert.ErrorIs(t, err, runtime.ErrBlocked)
	var blocked *sentinelgrpc.BlockedError
	require.ErrorAs(t, err, &blocked)
	assert.True(t, blocked.Remote)
	assert.Equal(t, testsvc.ProduceResource, blocked.Block.Resource())

	exits := rec.waitExits(t, outputCall, 2) // the client's entry and the server's
	for _, c := range exits {
		assert.NoError(t, c.Err, "a refusal is not an error for breakers")
	}
}
