package clients

import (
	"context"
	"net"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/examples/orderservice/orderspb"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/sentineltest"
)

// orderServer knows order 1 and counts the calls it gets.
type orderServer struct {
	orderspb.UnimplementedOrderServiceServer
	calls atomic.Int64
}

func (s *orderServer) GetOrder(ctx context.Context, in *orderspb.GetOrderRequest) (*orderspb.Order, error) {
	s.calls.Add(1)
	if in.GetId() != 1 {
		return nil, status.Error(codes.NotFound, "no such order")
	}
	return &orderspb.Order{Id: 1, User: "alice", Status: "paid"}, nil
}

// protectedClient serves orderServer on a loopback port and returns the
// generated client to it, protected.
func protectedClient(t *testing.T) (OrdersClient, *orderServer) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv, impl := grpc.NewServer(), &orderServer{}
	orderspb.RegisterOrderServiceServer(srv, impl)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///"+lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, conn.Close()) })
	return ProtectOrdersClient(orderspb.NewOrderServiceClient(conn)), impl
}

func TestOrdersClientCallsTheServerWhenAdmitted(t *testing.T) {
	sentineltest.Reset(t)
	client, srv := protectedClient(t)
	o, err := client.GetOrder(t.Context(), &orderspb.GetOrderRequest{Id: 1})
	require.NoError(t, err)
	assert.Equal(t, "alice", o.GetUser())
	assert.False(t, o.GetDegraded())
	assert.EqualValues(t, 1, srv.calls.Load())
	n := runtime.LookupResource("orders.GetOrder").ClusterNode()
	assert.EqualValues(t, 1, n.PassQPS(runtime.NowMillis()))
}

func TestOrdersClientFlowRuleRefusesBeyondItsCount(t *testing.T) {
	sentineltest.Reset(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "orders.GetOrder", Grade: flow.GradeQPS, Count: 2}}))
	client, srv := protectedClient(t)
	var degraded int
	for range 5 {
		o, err := client.GetOrder(t.Context(), &orderspb.GetOrderRequest{Id: 1})
		require.NoError(t, err)
		if o.GetDegraded() {
			degraded++
			assert.Equal(t, "unknown", o.GetStatus(), "ordersRefused answers")
		}
	}
	assert.Equal(t, 3, degraded, "two admitted in the second, three refused")
	assert.EqualValues(t, 2, srv.calls.Load(), "a refused call never reaches the server")
}

func TestOrdersClientRefusedMethodsAnswerUnavailable(t *testing.T) {
	sentineltest.Reset(t)
	sentineltest.Block(t, "orders.CreateOrder", runtime.BlockFlow)
	client, _ := protectedClient(t)
	_, err := client.CreateOrder(t.Context(), &orderspb.CreateOrderRequest{User: "bob", Item: "book"})
	assert.Equal(t, codes.Unavailable, status.Code(err))
}

func TestOrdersClientServerErrorsAreTracedAndReturned(t *testing.T) {
	sentineltest.Reset(t)
	client, _ := protectedClient(t)
	_, err := client.GetOrder(t.Context(), &orderspb.GetOrderRequest{Id: 2})
	assert.Equal(t, codes.NotFound, status.Code(err), "the server's error, as it is")
	n := runtime.LookupResource("orders.GetOrder").ClusterNode()
	assert.EqualValues(t, 1, n.ExceptionQPS(runtime.NowMillis()), "traced: it feeds circuit breakers")
}
