package sentinelgrpc_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc"
)

// serverCase is one way an inbound call enters: unary or stream, with or
// without an origin.
type serverCase struct {
	name   string
	stream bool
	origin string
}

var serverCases = []serverCase{
	{"unary", false, ""},
	{"unary with an origin", false, "billing"},
	{"stream", true, ""},
	{"stream with an origin", true, "billing"},
}

// call runs one call through the case's interceptor made of opts, to a
// handler that gets the handler's context; it returns that context.
func (sc serverCase) call(t *testing.T, method string, opts ...sentinelgrpc.ServerOption) context.Context {
	t.Helper()
	var got context.Context
	if sc.stream {
		intercept := sentinelgrpc.StreamServerInterceptor(opts...)
		ss := &contextStream{ctx: context.Background()}
		err := intercept(nil, ss, &grpc.StreamServerInfo{FullMethod: method}, func(_ any, s grpc.ServerStream) error {
			got = s.Context()
			return s.SendMsg("reply")
		})
		require.NoError(t, err)
		assert.Equal(t, []any{"reply"}, ss.sent, "the handler's stream is the server's")
		return got
	}
	intercept := sentinelgrpc.UnaryServerInterceptor(opts...)
	resp, err := intercept(context.Background(), "req", &grpc.UnaryServerInfo{FullMethod: method}, func(ctx context.Context, req any) (any, error) {
		got = ctx
		return req, nil
	})
	require.NoError(t, err)
	assert.Equal(t, "req", resp)
	return got
}

// contextStream is a server stream with a context that records what the
// handler sends.
type contextStream struct {
	grpc.ServerStream
	ctx  context.Context
	sent []any
}

func (s *contextStream) Context() context.Context { return s.ctx }
func (s *contextStream) SendMsg(m any) error      { s.sent = append(s.sent, m); return nil }

var enterRuns atomic.Int64

func TestServerCallsEnterTheSameWayBeforeAndAfterTheirResourceExists(t *testing.T) {
	for i, sc := range serverCases {
		t.Run(sc.name, func(t *testing.T) {
			handClock(t)
			rec := record(t)
			// A method of its own in each run of the test (-count).
			method := fmt.Sprintf("/alloc.Service/Enter%c%d", 'A'+i, enterRuns.Add(1))
			require.Nil(t, runtime.LookupResource(method))
			var opts []sentinelgrpc.ServerOption
			if sc.origin != "" {
				opts = append(opts, sentinelgrpc.WithOriginParser(func(context.Context, string) string { return sc.origin }))
			}
			// The first call creates the resource by name; later ones use it.
			for n := 1; n <= 2; n++ {
				ctx := sc.call(t, method, opts...)
				name, origin := runtime.ContextName(ctx)
				assert.Equal(t, runtime.DefaultContextName, name)
				assert.Equal(t, sc.origin, origin)
				checks, exits := rec.seen(method)
				require.Len(t, checks, n)
				require.Len(t, exits, n)
				assert.Equal(t, call{Name: method, Context: runtime.DefaultContextName, Origin: sc.origin,
					Traffic: runtime.Inbound, Type: runtime.RPC}, exits[n-1])

				// The handler's context carries the entry: a call made with
				// it is its child.
				child, b := runtime.Entry(ctx, method+"/child")
				require.Nil(t, b)
				child.Exit()
			}
			m := findNode(*findNode(runtime.Tree(), runtime.DefaultContextName), method)
			require.NotNil(t, m)
			assert.NotNil(t, findNode(*m, method+"/child"))
		})
	}
}

// An admitted call costs the server interceptors one allocation: the
// entry, with the Sentinel context of an origin and a stream's view of
// itself in it.
func TestServerInterceptorsAllocateOncePerAdmittedCall(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	origin := func(context.Context, string) string { return "billing" }
	for i, sc := range serverCases {
		t.Run(sc.name, func(t *testing.T) {
			method := "/alloc.Service/Call" + string(rune('A'+i))
			var opts []sentinelgrpc.ServerOption
			if sc.origin != "" {
				opts = append(opts, sentinelgrpc.WithOriginParser(origin))
			}
			info := &grpc.UnaryServerInfo{FullMethod: method}
			unary := sentinelgrpc.UnaryServerInterceptor(opts...)
			unaryHandler := func(ctx context.Context, req any) (any, error) { return req, nil }
			sinfo := &grpc.StreamServerInfo{FullMethod: method}
			stream := sentinelgrpc.StreamServerInterceptor(opts...)
			var ss grpc.ServerStream = &contextStream{ctx: context.Background()}
			streamHandler := func(any, grpc.ServerStream) error { return nil }
			run := func() {
				var err error
				if sc.stream {
					err = stream(nil, ss, sinfo, streamHandler)
				} else {
					_, err = unary(context.Background(), nil, info, unaryHandler)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			run() // creates the resource, binds its chain, creates its nodes
			assert.EqualValues(t, 1, testing.AllocsPerRun(200, run))
		})
	}
}

// A refused call costs the server interceptors no more than an admitted
// one: its entry, with the Sentinel context of an origin in it. The
// status grpc-go sends, ErrorInfo detail included, is built once for the
// rule and returned again, as is the *BlockedError that carries it.
func TestServerInterceptorsAllocateOncePerRefusedCall(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	origin := func(context.Context, string) string { return "billing" }
	for i, sc := range serverCases {
		t.Run(sc.name, func(t *testing.T) {
			method := "/alloc.Service/Refused" + string(rune('A'+i))
			require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: method, Grade: flow.GradeQPS, Count: 0}}))
			t.Cleanup(func() { _ = flow.LoadRules(nil) })
			var opts []sentinelgrpc.ServerOption
			if sc.origin != "" {
				opts = append(opts, sentinelgrpc.WithOriginParser(origin))
			}
			info := &grpc.UnaryServerInfo{FullMethod: method}
			unary := sentinelgrpc.UnaryServerInterceptor(opts...)
			unaryHandler := func(ctx context.Context, req any) (any, error) { return req, nil }
			sinfo := &grpc.StreamServerInfo{FullMethod: method}
			stream := sentinelgrpc.StreamServerInterceptor(opts...)
			var ss grpc.ServerStream = &contextStream{ctx: context.Background()}
			streamHandler := func(any, grpc.ServerStream) error { return nil }
			var last error
			run := func() {
				var err error
				if sc.stream {
					err = stream(nil, ss, sinfo, streamHandler)
				} else {
					_, err = unary(context.Background(), nil, info, unaryHandler)
				}
				// What grpc-go does with the error: its status, to send.
				st, ok := status.FromError(err)
				if !ok || st.Code() != codes.ResourceExhausted {
					t.Fatal(err)
				}
				last = err
			}
			run() // creates the resource, binds its chain, builds the status
			first := last
			assert.EqualValues(t, 1, testing.AllocsPerRun(200, run))
			assert.Same(t, first, last, "one error for every refusal by the rule")

			st := status.Convert(last)
			require.Len(t, st.Details(), 1)
			detail, ok := st.Details()[0].(*errdetails.ErrorInfo)
			require.True(t, ok)
			assert.Equal(t, map[string]string{"blockType": "flow", "resource": method}, detail.GetMetadata())
			var b *runtime.BlockError
			require.ErrorAs(t, last, &b)
			assert.Equal(t, method, b.Resource())
		})
	}
}

// A caller that changes the shared *BlockedError it was given changes
// nothing for the next refused call.
func TestSharedBlockedErrorIsRebuiltWhenChanged(t *testing.T) {
	method := "/alloc.Service/Tampered"
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: method, Grade: flow.GradeQPS, Count: 0}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	unary := sentinelgrpc.UnaryServerInterceptor()
	info := &grpc.UnaryServerInfo{FullMethod: method}
	call := func() *sentinelgrpc.BlockedError {
		_, err := unary(context.Background(), nil, info, func(ctx context.Context, req any) (any, error) { return req, nil })
		var be *sentinelgrpc.BlockedError
		require.ErrorAs(t, err, &be)
		return be
	}
	first := call()
	first.Block = runtime.NewBlockError(runtime.BlockSystem, "elsewhere", nil, nil)
	first.Remote = true

	next := call()
	assert.NotSame(t, first, next)
	assert.Equal(t, method, next.Block.Resource())
	assert.False(t, next.Remote)
	assert.Equal(t, codes.ResourceExhausted, status.Code(next))
}
