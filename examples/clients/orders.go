package clients

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/examples/orderservice/orderspb"
)

// OrdersClient is the order service's generated gRPC client, protected
// method by method: GetOrder enters "orders.GetOrder", and so on. A
// request message is no hot-parameter key, so args="" passes none. A
// refused call is answered by ordersRefused; an error of the server is
// traced (it feeds circuit breakers) and returned as it is. ListOrders
// is protected while it opens its stream.
//
//sentinel:decorate name=orders.{method} type=rpc args="" blockHandler=ordersRefused
type OrdersClient = orderspb.OrderServiceClient

// ordersRefused answers for the order service when Sentinel refuses a call:
// GetOrder with a degraded order (its id, status "unknown"), every other
// method with UNAVAILABLE, as a gRPC client sees a server that sheds load.
func ordersRefused(cause error) OrdersClient { return refusedOrders{cause} }

type refusedOrders struct{ cause error }

func (r refusedOrders) GetOrder(ctx context.Context, in *orderspb.GetOrderRequest, opts ...grpc.CallOption) (*orderspb.Order, error) {
	return &orderspb.Order{Id: in.GetId(), Status: "unknown", Degraded: true}, nil
}

func (r refusedOrders) CreateOrder(ctx context.Context, in *orderspb.CreateOrderRequest, opts ...grpc.CallOption) (*orderspb.Order, error) {
	return nil, r.unavailable()
}

func (r refusedOrders) PayOrder(ctx context.Context, in *orderspb.PayOrderRequest, opts ...grpc.CallOption) (*orderspb.Order, error) {
	return nil, r.unavailable()
}

func (r refusedOrders) ListOrders(ctx context.Context, in *orderspb.ListOrdersRequest, opts ...grpc.CallOption) (grpc.ServerStreamingClient[orderspb.Order], error) {
	return nil, r.unavailable()
}

func (r refusedOrders) unavailable() error {
	return status.Error(codes.Unavailable, "orders: "+r.cause.Error())
}
