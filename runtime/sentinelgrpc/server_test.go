package sentinelgrpc_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc/internal/testsvc"
)

func TestUnaryServerAdmitsAnInboundRPCResourceNamedAfterTheFullMethod(t *testing.T) {
	handClock(t)
	rec := record(t)
	e := serveProtected(t)

	resp, err := e.unary(t.Context(), "hello", 0)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(resp.GetPayload().GetBody()))

	exits := rec.waitExits(t, unaryCall, 1)
	require.Len(t, exits, 1)
	got := exits[0]
	assert.Equal(t, runtime.DefaultContextName, got.Context, "Java's adapter enters no named context")
	assert.Equal(t, runtime.Inbound, got.Traffic)
	assert.Equal(t, runtime.RPC, got.Type)
	assert.Equal(t, "", got.Origin, "no origin without an option")
	assert.NoError(t, got.Err)
}

func TestUnaryServerRefusesWithResourceExhaustedNamingTheBlockType(t *testing.T) {
	handClock(t)
	rec := record(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: unaryCall, Grade: flow.GradeQPS, Count: 1}}))
	e := serveProtected(t)

	_, err := e.unary(t.Context(), "a", 0)
	require.NoError(t, err)
	_, err = e.unary(t.Context(), "b", 0)
	require.Error(t, err)
	st := status.Convert(err)
	assert.Equal(t, codes.ResourceExhausted, st.Code())
	assert.Equal(t, `sentinel: "`+unaryCall+`" blocked by flow rule (FlowException)`, st.Message())

	checks, _ := rec.seen(testsvc.LookupResource)
	assert.Len(t, checks, 1, "the refused call never reached the handler")
}

func TestUnaryServerBlockHandlerAnswersRefusedCalls(t *testing.T) {
	handClock(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: unaryCall, Grade: flow.GradeQPS, Count: 0}}))
	var seen atomic.Pointer[runtime.BlockError]
	e := serveProtected(t, sentinelgrpc.WithBlockHandler(
		func(ctx context.Context, req any, info *grpc.UnaryServerInfo, b *runtime.BlockError) (any, error) {
			seen.Store(b)
			return &testgrpc.SimpleResponse{Payload: &testgrpc.Payload{Body: []byte("degraded " + info.FullMethod)}}, nil
		}))

	resp, err := e.unary(t.Context(), "x", 0)
	require.NoError(t, err)
	assert.Equal(t, "degraded "+unaryCall, string(resp.GetPayload().GetBody()))
	require.NotNil(t, seen.Load())
	assert.Equal(t, runtime.BlockFlow, seen.Load().BlockType())
}

func TestUnaryServerErrorsOpenABreakerThatRecovers(t *testing.T) {
	clock := handClock(t)
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: unaryCall, Grade: degrade.ErrorCount,
		Count: 2, MinRequestAmount: 3, TimeWindow: 5, StatIntervalMs: 10000}}))
	rec := record(t)
	e := serveProtected(t)

	for i := range 3 {
		_, err := e.unary(t.Context(), "boom", int32(codes.Unavailable))
		require.Equal(t, codes.Unavailable, status.Code(err), "call %d", i)
	}
	exits := rec.waitExits(t, unaryCall, 3)
	for _, c := range exits {
		assert.Equal(t, codes.Unavailable, status.Code(c.Err), "the handler's status is recorded")
	}

	_, err := e.unary(t.Context(), "ok", 0)
	st := status.Convert(err)
	require.Equal(t, codes.ResourceExhausted, st.Code(), "three errors over a count of 2 open the breaker")
	assert.Contains(t, st.Message(), "degrade")

	clock.Advance(5 * time.Second)
	_, err = e.unary(t.Context(), "probe", 0)
	require.NoError(t, err, "after the time window one probe is let through")
	rec.waitExits(t, unaryCall, 4)
	for i := range 5 {
		_, err = e.unary(t.Context(), "ok", 0)
		require.NoError(t, err, "the probe succeeded and closed the breaker (call %d)", i)
	}
}

func TestServerRecordsOnlyTheErrorCodesOfServerFailures(t *testing.T) {
	tests := []struct {
		name     string
		opts     []sentinelgrpc.ServerOption
		code     codes.Code
		recorded bool
	}{
		{name: "Unavailable", code: codes.Unavailable, recorded: true},
		{name: "Internal", code: codes.Internal, recorded: true},
		{name: "Unknown", code: codes.Unknown, recorded: true},
		{name: "DataLoss", code: codes.DataLoss, recorded: true},
		{name: "DeadlineExceeded", code: codes.DeadlineExceeded, recorded: true},
		{name: "InvalidArgument is the caller's", code: codes.InvalidArgument},
		{name: "NotFound is an answer", code: codes.NotFound},
		{name: "PermissionDenied", code: codes.PermissionDenied},
		{name: "ResourceExhausted is a refusal", code: codes.ResourceExhausted},
		{name: "a set of codes replaces the default", code: codes.NotFound, recorded: true,
			opts: []sentinelgrpc.ServerOption{sentinelgrpc.WithErrorCodes(codes.NotFound)}},
		{name: "a set of codes replaces the default: Unavailable", code: codes.Unavailable,
			opts: []sentinelgrpc.ServerOption{sentinelgrpc.WithErrorCodes(codes.NotFound)}},
		{name: "nil predicate records nothing", code: codes.Internal,
			opts: []sentinelgrpc.ServerOption{sentinelgrpc.WithErrorCode(nil)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handClock(t)
			rec := record(t)
			e := serveProtected(t, tt.opts...)

			_, err := e.unary(t.Context(), "x", int32(tt.code))
			require.Equal(t, tt.code, status.Code(err), "the client gets the handler's status")
			exits := rec.waitExits(t, unaryCall, 1)
			if tt.recorded {
				assert.Equal(t, tt.code, status.Code(exits[0].Err))
			} else {
				assert.NoError(t, exits[0].Err)
			}
		})
	}
}

func TestServerDoesNotRecordTheClientsCancellation(t *testing.T) {
	handClock(t)
	rec := record(t)
	e := serveProtected(t)
	e.svc.Block = make(chan struct{})
	defer close(e.svc.Block)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := e.unary(ctx, "slow", 0); done <- err }()
	require.Eventually(t, func() bool { c, _ := rec.seen(testsvc.LookupResource); return len(c) == 1 },
		10*time.Second, time.Millisecond, "the handler is running")
	cancel()
	assert.Equal(t, codes.Canceled, status.Code(<-done))

	exits := rec.waitExits(t, unaryCall, 1)
	assert.NoError(t, exits[0].Err, "the client gave up: not a server failure")
}

func TestServerReadsTheOriginFromMetadataBounded(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	tests := []struct {
		name, sent, want string
	}{
		{name: "as sent", sent: "billing", want: "billing"},
		{name: "cut to MaxOriginLen bytes", sent: long, want: long[:sentinelgrpc.MaxOriginLen]},
		{name: "control and non-ASCII bytes replaced", sent: "a\tb\u00e9", want: "a?b??"},
		{name: "absent", sent: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			handClock(t)
			rec := record(t)
			e := serveProtected(t, sentinelgrpc.WithOriginKey("S-User"))

			ctx := t.Context()
			if tt.sent != "" {
				// A -bin key carries any bytes; a text key only printable ASCII.
				key := "s-user"
				if strings.ContainsFunc(tt.sent, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
					e = serveProtected(t, sentinelgrpc.WithOriginKey("s-user-bin"))
					key = "s-user-bin"
				}
				ctx = metadata.AppendToOutgoingContext(ctx, key, tt.sent)
			}
			_, err := e.unary(ctx, "x", 0)
			require.NoError(t, err)
			exits := rec.waitExits(t, unaryCall, 1)
			assert.Equal(t, tt.want, exits[0].Origin)
			assert.LessOrEqual(t, len(exits[0].Origin), sentinelgrpc.MaxOriginLen)
		})
	}
}

func TestServerOriginFeedsAuthorityOfFlowRulesLimitApp(t *testing.T) {
	handClock(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: unaryCall, LimitApp: "batch", Grade: flow.GradeQPS, Count: 0}}))
	e := serveProtected(t, sentinelgrpc.WithOriginKey("s-user"))

	_, err := e.unary(metadata.AppendToOutgoingContext(t.Context(), "s-user", "batch"), "x", 0)
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "the rule limits the batch origin")
	_, err = e.unary(metadata.AppendToOutgoingContext(t.Context(), "s-user", "web"), "x", 0)
	assert.NoError(t, err, "other origins pass")
}

func TestGeneratedWrapperNestsUnderTheServerEntry(t *testing.T) {
	handClock(t)
	rec := record(t)
	e := serveProtected(t)

	_, err := e.client.EmptyCall(t.Context(), &testgrpc.Empty{})
	require.NoError(t, err)
	stream, err := e.client.HalfDuplexCall(t.Context())
	require.NoError(t, err)
	require.NoError(t, stream.CloseSend())
	_, err = stream.Recv()
	require.NoError(t, err)
	_, err = stream.Recv()
	require.ErrorIs(t, err, io.EOF)
	const emptyCall, halfDuplexCall = "/grpc.testing.TestService/EmptyCall", "/grpc.testing.TestService/HalfDuplexCall"
	rec.waitExits(t, halfDuplexCall, 1)

	entrance := findNode(runtime.Tree(), runtime.DefaultContextName)
	require.NotNil(t, entrance)
	for method, wrapper := range map[string]string{emptyCall: testsvc.NestResource, halfDuplexCall: testsvc.NestStreamResource} {
		calls, _ := rec.seen(wrapper)
		require.Len(t, calls, 1, wrapper)
		m := findNode(*entrance, method)
		require.NotNil(t, m, method)
		assert.NotNil(t, findNode(*m, wrapper), "%s is a child of %s", wrapper, method)
	}
}

func TestStreamServerEntrySpansTheHandlerAndExitsOnce(t *testing.T) {
	handClock(t)
	rec := record(t)
	e := serveProtected(t)

	stream, err := e.client.FullDuplexCall(t.Context())
	require.NoError(t, err)
	for _, body := range []string{"a", "b", "c"} {
		require.NoError(t, stream.Send(&testgrpc.StreamingOutputCallRequest{Payload: &testgrpc.Payload{Body: []byte(body)}}))
		resp, err := stream.Recv()
		require.NoError(t, err)
		assert.Equal(t, body, string(resp.GetPayload().GetBody()))
	}
	checks, exits := rec.seen(duplexCall)
	assert.Len(t, checks, 1, "one entry for the stream")
	assert.Empty(t, exits, "open while the handler runs")
	assert.EqualValues(t, 1, runtime.LookupResource(duplexCall).ClusterNode().Threads())

	require.NoError(t, stream.CloseSend())
	_, err = stream.Recv()
	require.ErrorIs(t, err, io.EOF)
	exits = rec.waitExits(t, duplexCall, 1)
	assert.Len(t, exits, 1)
	assert.NoError(t, exits[0].Err)
	assert.Equal(t, runtime.Inbound, exits[0].Traffic)
	assert.EqualValues(t, 0, runtime.LookupResource(duplexCall).ClusterNode().Threads())
}

func TestStreamServerRefusesWithResourceExhausted(t *testing.T) {
	handClock(t)
	rec := record(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: outputCall, Grade: flow.GradeQPS, Count: 0}}))
	e := serveProtected(t)

	stream, err := e.client.StreamingOutputCall(t.Context(), &testgrpc.StreamingOutputCallRequest{
		ResponseParameters: []*testgrpc.ResponseParameters{{}}})
	require.NoError(t, err)
	_, err = stream.Recv()
	st := status.Convert(err)
	assert.Equal(t, codes.ResourceExhausted, st.Code())
	assert.Contains(t, st.Message(), "flow")
	checks, _ := rec.seen(testsvc.ProduceResource)
	assert.Empty(t, checks, "the handler never ran")
}

func TestStreamServerBlockHandlerAnswersRefusedStreams(t *testing.T) {
	handClock(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: outputCall, Grade: flow.GradeQPS, Count: 0}}))
	e := serveProtected(t, sentinelgrpc.WithStreamBlockHandler(
		func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, b *runtime.BlockError) error {
			return status.Error(codes.Unavailable, "try later: "+b.BlockType().String())
		}))

	stream, err := e.client.StreamingOutputCall(t.Context(), &testgrpc.StreamingOutputCallRequest{})
	require.NoError(t, err)
	_, err = stream.Recv()
	assert.Equal(t, codes.Unavailable, status.Code(err))
	assert.Contains(t, status.Convert(err).Message(), "try later: flow")
}

func TestStreamServerErrorsOpenABreakerThatRecovers(t *testing.T) {
	clock := handClock(t)
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: outputCall, Grade: degrade.ErrorCount,
		Count: 1, MinRequestAmount: 2, TimeWindow: 3, StatIntervalMs: 10000}}))
	rec := record(t)
	e := serveProtected(t)
	callOnce := func(code codes.Code) error {
		stream, err := e.client.StreamingOutputCall(t.Context(), &testgrpc.StreamingOutputCallRequest{
			ResponseStatus: &testgrpc.EchoStatus{Code: int32(code)}})
		require.NoError(t, err)
		_, err = stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}

	for range 2 {
		require.Equal(t, codes.Internal, status.Code(callOnce(codes.Internal)))
	}
	rec.waitExits(t, outputCall, 2)
	require.Equal(t, codes.ResourceExhausted, status.Code(callOnce(codes.OK)), "two errors over a count of 1 open the breaker")

	clock.Advance(3 * time.Second)
	require.NoError(t, callOnce(codes.OK), "the probe")
	rec.waitExits(t, outputCall, 3)
	require.NoError(t, callOnce(codes.OK), "closed again")
}

func TestServerHotParameterArgumentsComeFromTheRequest(t *testing.T) {
	handClock(t)
	rule := paramflow.NewRule(unaryCall, 0, 1)
	require.NoError(t, paramflow.LoadRules([]paramflow.Rule{rule}))
	var asked atomic.Int32
	e := serveProtected(t, sentinelgrpc.WithArgs(func(ctx context.Context, method string, req any) []any {
		asked.Add(1)
		return []any{string(req.(*testgrpc.SimpleRequest).GetPayload().GetBody())}
	}))

	_, err := e.unary(t.Context(), "alice", 0)
	require.NoError(t, err)
	_, err = e.unary(t.Context(), "alice", 0)
	st := status.Convert(err)
	assert.Equal(t, codes.ResourceExhausted, st.Code(), "alice is over her limit of 1")
	assert.Contains(t, st.Message(), "paramflow")
	_, err = e.unary(t.Context(), "bob", 0)
	assert.NoError(t, err, "bob is counted apart")
	assert.EqualValues(t, 3, asked.Load())
}

func TestServerPassesNoArgumentsWhenNoRuleReadsThem(t *testing.T) {
	handClock(t)
	var asked atomic.Int32
	e := serveProtected(t, sentinelgrpc.WithArgs(func(context.Context, string, any) []any {
		asked.Add(1)
		return nil
	}))
	for range 3 {
		_, err := e.unary(t.Context(), "x", 0)
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, asked.Load(), int32(1), "at most once, before the resource's rules are bound")
}

func TestServerGivesARefusedGeneratedWrapperTheResourceExhaustedStatus(t *testing.T) {
	handClock(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: testsvc.LookupResource, Grade: flow.GradeQPS, Count: 0}}))
	e := serveProtected(t)

	_, err := e.unary(t.Context(), "x", 0)
	st := status.Convert(err)
	assert.Equal(t, codes.ResourceExhausted, st.Code(), "not Unknown")
	assert.Contains(t, st.Message(), testsvc.LookupResource)
}

func TestServerRecordsAHandlersPanicAndLetsItGoOn(t *testing.T) {
	handClock(t)
	rec := record(t)
	intercept := sentinelgrpc.UnaryServerInterceptor()
	info := &grpc.UnaryServerInfo{FullMethod: "/test.Panics/Unary"}
	assert.PanicsWithValue(t, "kaboom", func() {
		_, _ = intercept(t.Context(), nil, info, func(context.Context, any) (any, error) { panic("kaboom") })
	})
	_, exits := rec.seen(info.FullMethod)
	require.Len(t, exits, 1)
	var pe *sentinelgrpc.PanicError
	require.ErrorAs(t, exits[0].Err, &pe)
	assert.Equal(t, "kaboom", pe.Value)
	assert.EqualValues(t, 0, runtime.LookupResource(info.FullMethod).ClusterNode().Threads())
}

// findNode finds the first node named name below n, depth first.
func findNode(n runtime.TreeNode, name string) *runtime.TreeNode {
	for i := range n.Children {
		c := &n.Children[i]
		if c.Name == name {
			return c
		}
		if f := findNode(*c, name); f != nil {
			return f
		}
	}
	return nil
}

// Twenty calls whose clients chose a 20 ms deadline (grpc-timeout: 20m)
// used to open the method's error-count breaker for every client: the
// deadline the caller chose was recorded as the method's failure.
func TestCallersDeadlinesDoNotOpenTheMethodsBreaker(t *testing.T) {
	handClock(t)
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: unaryCall, Grade: degrade.ErrorCount,
		Count: 2, MinRequestAmount: 1, TimeWindow: 60, StatIntervalMs: 60000}}))
	rec := record(t)
	ended := &rpcEnds{}
	e := serve(t, []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(sentinelgrpc.UnaryServerInterceptor()),
		grpc.StatsHandler(ended),
	})
	e.svc.Block = make(chan struct{}) // healthy, only slower than 20 ms

	// Sent as an attacker would: grpc-timeout 20m, and no cancellation
	// when it passes, so the server's own timer ends the call. On a loaded
	// machine that timer can end a call before it reaches the method: no
	// entry then, and another call is sent, until twenty got in.
	for sent := int64(1); ; sent++ {
		if checks, _ := rec.seen(unaryCall); len(checks) >= 20 {
			t.Logf("%d calls sent for twenty to reach the method", sent-1)
			break
		}
		require.LessOrEqual(t, sent, int64(200), "calls sent for twenty to reach the method")
		rawUnaryCall(t, e.addr, "20m")
		ended.wait(t, sent)
	}
	checks, exits := rec.seen(unaryCall)
	require.Len(t, exits, len(checks), "every call that entered exited")
	for _, c := range exits {
		assert.NoError(t, c.Err, "the caller's deadline is not the method's error")
	}
	assert.EqualValues(t, 0, runtime.LookupResource(unaryCall).ClusterNode().Threads())
	close(e.svc.Block)
	_, err := e.unary(t.Context(), "next client", 0)
	require.NoError(t, err, "the breaker stays closed for the next client")
}

// A client that hangs up is not the method's failure either, on a stream.
func TestStreamClientsThatHangUpDoNotOpenTheMethodsBreaker(t *testing.T) {
	handClock(t)
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: duplexCall, Grade: degrade.ErrorCount,
		Count: 2, MinRequestAmount: 1, TimeWindow: 60, StatIntervalMs: 60000}}))
	rec := record(t)
	e := serveProtected(t)
	e.svc.Block = make(chan struct{})

	for i := range 5 {
		ctx, cancel := context.WithCancel(t.Context())
		stream, err := e.client.FullDuplexCall(ctx)
		require.NoError(t, err)
		require.NoError(t, stream.Send(&testgrpc.StreamingOutputCallRequest{Payload: payload("a")}))
		cancel()
		rec.waitExits(t, duplexCall, i+1)
	}
	_, exits := rec.seen(duplexCall)
	for _, c := range exits {
		assert.NoError(t, c.Err)
	}
	close(e.svc.Block)
	stream, err := e.client.FullDuplexCall(t.Context())
	require.NoError(t, err)
	require.NoError(t, stream.Send(&testgrpc.StreamingOutputCallRequest{Payload: payload("b")}))
	_, err = stream.Recv()
	require.NoError(t, err, "the breaker stays closed")
	require.NoError(t, stream.CloseSend())
}

// A handler that panics once its caller hung up ("must" on a query its
// context canceled), behind a recovery interceptor that keeps the server
// up, is what is left of an abandoned call: not the method's error, as on
// HTTP. The panic still goes on and the entry exits; a caller that did not
// hang up still has its panic recorded (the test above).
func TestAPanicAfterTheCallerHungUpIsNotTheMethodsError(t *testing.T) {
	handClock(t)
	rec := record(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()

	intercept := sentinelgrpc.UnaryServerInterceptor()
	info := &grpc.UnaryServerInfo{FullMethod: "/test.Panics/Canceled"}
	assert.PanicsWithValue(t, "canceled", func() {
		_, _ = intercept(ctx, nil, info, func(context.Context, any) (any, error) { panic("canceled") })
	})
	stream := sentinelgrpc.StreamServerInterceptor()
	sinfo := &grpc.StreamServerInfo{FullMethod: "/test.Panics/CanceledStream"}
	assert.PanicsWithValue(t, "canceled", func() {
		_ = stream(nil, &ctxStream{ctx: ctx}, sinfo, func(any, grpc.ServerStream) error { panic("canceled") })
	})
	client := sentinelgrpc.UnaryClientInterceptor()
	assert.PanicsWithValue(t, "canceled", func() {
		_ = client(ctx, "/test.Panics/CanceledClient", nil, nil, nil,
			func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { panic("canceled") })
	})

	for _, name := range []string{info.FullMethod, sinfo.FullMethod, "/test.Panics/CanceledClient"} {
		_, exits := rec.seen(name)
		require.Len(t, exits, 1, name)
		assert.NoError(t, exits[0].Err, "%s: the caller hung up", name)
		assert.EqualValues(t, 0, runtime.LookupResource(name).ClusterNode().Threads(), name)
	}
}

// ctxStream is a grpc.ServerStream with only a context.
type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *ctxStream) Context() context.Context { return s.ctx }
