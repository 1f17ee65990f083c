package sentinelgrpc_test

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc"
)

// What the client interceptors allocate for a call, admitted and refused:
// a unary call the entry alone; a stream the entry with its view of the
// stream in it, and, when the call's context can end, what watching it
// costs (context.AfterFunc: 3). A refusal allocates the entry only, its
// status built once for the rule.
func TestClientInterceptorsAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, tc := range []struct {
		name              string
		stream, canEnd    bool
		admitted, refused float64
	}{
		{"unary", false, true, 1, 1},
		{"stream", true, false, 1, 1},
		{"stream with a context that can end", true, true, 4, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unary := sentinelgrpc.UnaryClientInterceptor()
			invoker := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { return nil }
			stream := sentinelgrpc.StreamClientInterceptor()
			var cs grpc.ClientStream = eofStream{}
			streamer := func(context.Context, *grpc.StreamDesc, *grpc.ClientConn, string, ...grpc.CallOption) (grpc.ClientStream, error) {
				return cs, nil
			}
			desc := &grpc.StreamDesc{ServerStreams: true}
			ctx := context.Background()
			if tc.canEnd {
				var cancel func()
				ctx, cancel = context.WithCancel(ctx)
				t.Cleanup(cancel)
			}
			call := func(method string) error {
				if !tc.stream {
					return unary(ctx, method, nil, nil, nil, invoker)
				}
				s, err := stream(ctx, desc, nil, method, streamer)
				if err != nil {
					return err
				}
				if err := s.RecvMsg(nil); err != io.EOF {
					return err
				}
				return nil
			}
			admitted := "/alloc.Client/Admitted " + tc.name
			refused := "/alloc.Client/Refused " + tc.name
			require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: refused, Grade: flow.GradeQPS, Count: 0}}))
			t.Cleanup(func() { _ = flow.LoadRules(nil) })

			require.NoError(t, call(admitted))
			require.Equal(t, codes.ResourceExhausted, status.Code(call(refused)))
			got := []float64{
				testing.AllocsPerRun(200, func() { _ = call(admitted) }),
				testing.AllocsPerRun(200, func() { _ = call(refused) }),
			}
			assert.Equal(t, []float64{tc.admitted, tc.refused}, got, "admitted, refused")
		})
	}
}

// eofStream is a client stream whose server has nothing to send.
type eofStream struct{ grpc.ClientStream }

func (eofStream) RecvMsg(any) error { return io.EOF }
