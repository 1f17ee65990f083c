package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/examples/orderservice/orderspb"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// grpcTestApp is the service serving HTTP and gRPC on loopback ports, with
// the runtime on a hand-stepped clock, and a plain gRPC client of it.
type grpcTestApp struct {
	*testApp
	client orderspb.OrderServiceClient
}

func startGRPCTestApp(t *testing.T) *grpcTestApp {
	t.Helper()
	c := clocktest.New()
	t.Cleanup(runtime.SetClock(c))
	dir := t.TempDir()
	require.NoError(t, writeDefaultRules(dir))
	a, err := start(context.Background(), config{addr: "127.0.0.1:0", grpcAddr: "127.0.0.1:0", rulesDir: dir,
		createDelay: 300 * time.Millisecond, pollEvery: 100 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, a.Close()) })
	conn, err := grpc.NewClient("passthrough:///"+a.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, conn.Close()) })
	return &grpcTestApp{testApp: &testApp{app: a, t: t, clock: c, rules: dir, client: testClient(t)}, client: orderspb.NewOrderServiceClient(conn)}
}

// codesOf counts the status codes of n GetOrder calls.
func (a *grpcTestApp) codesOf(n int, id int64) map[codes.Code]int {
	out := map[codes.Code]int{}
	for range n {
		_, err := a.client.GetOrder(a.t.Context(), &orderspb.GetOrderRequest{Id: id})
		out[status.Code(err)]++
	}
	return out
}

func TestGRPCMethodAdmitsItsThresholdAndRefusesWithResourceExhausted(t *testing.T) {
	a := startGRPCTestApp(t)
	a.nextSecond()
	o, err := a.client.GetOrder(t.Context(), &orderspb.GetOrderRequest{Id: 1})
	require.NoError(t, err)
	assert.Equal(t, "alice", o.GetUser())
	assert.Equal(t, map[codes.Code]int{codes.OK: 9, codes.ResourceExhausted: 5}, a.codesOf(14, 1),
		"/orders.OrderService/GetOrder admits 10 a second")

	_, err = a.client.GetOrder(t.Context(), &orderspb.GetOrderRequest{Id: 1})
	st := status.Convert(err)
	assert.Equal(t, codes.ResourceExhausted, st.Code())
	assert.Contains(t, st.Message(), "flow")

	a.nextSecond()
	assert.Equal(t, map[codes.Code]int{codes.OK: 10, codes.ResourceExhausted: 2}, a.codesOf(12, 1), "a new second, a new allowance")
}

func TestGRPCAndHTTPShareTheBusinessMethodsRules(t *testing.T) {
	a := startGRPCTestApp(t)
	a.nextSecond()
	assert.Equal(t, map[codes.Code]int{codes.OK: 10}, a.codesOf(10, 1))
	degraded := 0
	for range 10 {
		code, body := a.call("GET", "/api/order?id=1", "")
		require.Equal(t, 200, code)
		if strings.Contains(body, `"degraded":true`) {
			degraded++
		}
	}
	assert.Equal(t, 5, degraded, "getOrder admits 15 a second over both APIs; its block handler answers the rest")
}

func TestGRPCErrorsMapToStatuses(t *testing.T) {
	a := startGRPCTestApp(t)
	_, err := a.client.GetOrder(t.Context(), &orderspb.GetOrderRequest{Id: 999})
	assert.Equal(t, codes.NotFound, status.Code(err))
	_, err = a.client.CreateOrder(t.Context(), &orderspb.CreateOrderRequest{})
	assert.Equal(t, codes.InvalidArgument, status.Code(err))
	o, err := a.client.PayOrder(t.Context(), &orderspb.PayOrderRequest{Id: 2})
	require.NoError(t, err)
	assert.Equal(t, "paid", o.GetStatus())
}

func TestGRPCGeneratedWrapperNestsUnderTheMethod(t *testing.T) {
	a := startGRPCTestApp(t)
	_, err := a.client.GetOrder(t.Context(), &orderspb.GetOrderRequest{Id: 1})
	require.NoError(t, err)

	var method *runtime.TreeNode
	for _, en := range runtime.Tree().Children {
		if en.Name != runtime.DefaultContextName {
			continue
		}
		for i := range en.Children {
			if en.Children[i].Name == grpcGetOrder {
				method = &en.Children[i]
			}
		}
	}
	require.NotNil(t, method, "the gRPC method is an entrance's child")
	var names []string
	for _, c := range method.Children {
		names = append(names, c.Name)
	}
	assert.Contains(t, names, "getOrder", "the wrapper the handler calls is the method's child")
}

func TestGRPCOriginComesFromTheCallerMetadata(t *testing.T) {
	a := startGRPCTestApp(t)
	ctx := metadata.AppendToOutgoingContext(t.Context(), CallerMetadataKey, "billing")
	_, err := a.client.GetOrder(ctx, &orderspb.GetOrderRequest{Id: 1})
	require.NoError(t, err)
	assert.Contains(t, runtime.LookupResource(grpcGetOrder).ClusterNode().Origins(), "billing")
}

func TestGRPCListOrdersStreamsAndItsHotParameterRuleRefuses(t *testing.T) {
	a := startGRPCTestApp(t)
	a.nextSecond()
	list := func(user string) ([]*orderspb.Order, error) {
		stream, err := a.client.ListOrders(t.Context(), &orderspb.ListOrdersRequest{User: user})
		require.NoError(t, err)
		var out []*orderspb.Order
		for {
			o, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			if err != nil {
				return out, err
			}
			out = append(out, o)
		}
	}
	orders, err := list("alice")
	require.NoError(t, err)
	assert.Len(t, orders, 2, "alice has two orders")
	got := map[codes.Code]int{}
	for range 9 {
		_, err := list("alice")
		got[status.Code(err)]++
	}
	assert.Equal(t, map[codes.Code]int{codes.OK: 4, codes.ResourceExhausted: 5}, got, "listOrders admits 5 a second per user")
	assert.EqualValues(t, 0, runtime.LookupResource(orderspb.OrderService_ListOrders_FullMethodName).ClusterNode().Threads(),
		"every stream's entry exited")
}
