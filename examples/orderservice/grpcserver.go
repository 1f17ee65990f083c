package main

import (
	"context"
	"errors"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/examples/orderservice/orderspb"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc"
)

// CallerMetadataKey names the calling application in gRPC metadata, as
// CallerHeader does over HTTP; it becomes the Sentinel origin.
const CallerMetadataKey = "x-caller"

// newGRPCServer serves the API over gRPC behind Sentinel's server
// interceptors: every method is an inbound resource named after its full
// method name ("/orders.OrderService/GetOrder"), and the handlers call the
// same generated wrappers as the HTTP routes, whose resources nest under
// the method's.
func newGRPCServer(svc *OrderService) *grpc.Server {
	origin := sentinelgrpc.WithOriginKey(CallerMetadataKey)
	srv := grpc.NewServer(
		grpc.ChainUnaryInterceptor(sentinelgrpc.UnaryServerInterceptor(origin)),
		grpc.ChainStreamInterceptor(sentinelgrpc.StreamServerInterceptor(origin)),
		// Metadata is the caller's choice: bound what a call may send.
		grpc.MaxHeaderListSize(16<<10),
	)
	orderspb.RegisterOrderServiceServer(srv, &grpcOrders{svc: svc})
	return srv
}

// serveGRPC listens on addr and serves the gRPC API until Close.
func (a *app) serveGRPC(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	a.grpcLn = ln
	a.grpcSrv = newGRPCServer(a.svc)
	go func() { a.served <- a.grpcSrv.Serve(ln) }()
	return nil
}

// stopGRPC lets calls in flight finish, for at most five seconds.
func (a *app) stopGRPC() {
	done := make(chan struct{})
	go func() { a.grpcSrv.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		a.grpcSrv.Stop()
		<-done
	}
}

// GRPCAddr is where the gRPC API listens, "" when it is not served.
func (a *app) GRPCAddr() string {
	if a.grpcLn == nil {
		return ""
	}
	return a.grpcLn.Addr().String()
}

// grpcOrders implements orderspb.OrderServiceServer on the business layer.
type grpcOrders struct {
	orderspb.UnimplementedOrderServiceServer
	svc *OrderService
}

func (g *grpcOrders) GetOrder(ctx context.Context, req *orderspb.GetOrderRequest) (*orderspb.Order, error) {
	o, err := g.svc.GetOrder(ctx, req.GetId())
	return toProto(o), grpcError(err)
}

func (g *grpcOrders) CreateOrder(ctx context.Context, req *orderspb.CreateOrderRequest) (*orderspb.Order, error) {
	if req.GetUser() == "" {
		return nil, status.Error(codes.InvalidArgument, "user is required")
	}
	o, err := g.svc.CreateOrder(ctx, req.GetUser(), req.GetItem(), req.GetAmount())
	return toProto(o), grpcError(err)
}

func (g *grpcOrders) PayOrder(ctx context.Context, req *orderspb.PayOrderRequest) (*orderspb.Order, error) {
	o, err := g.svc.PayOrder(ctx, req.GetId())
	return toProto(o), grpcError(err)
}

func (g *grpcOrders) ListOrders(req *orderspb.ListOrdersRequest, stream grpc.ServerStreamingServer[orderspb.Order]) error {
	if req.GetUser() == "" {
		return status.Error(codes.InvalidArgument, "user is required")
	}
	orders, err := g.svc.ListOrders(stream.Context(), req.GetUser())
	if err != nil {
		return grpcError(err)
	}
	for i := range orders {
		if err := stream.Send(toProto(&orders[i])); err != nil {
			return err
		}
	}
	return nil
}

// grpcError maps the business layer's errors to statuses, as reply does
// to HTTP statuses.
func grpcError(err error) error {
	var b *runtime.BlockError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound):
		return status.Error(codes.NotFound, err.Error())
	case errors.As(err, &b):
		return sentinelgrpc.BlockStatus(b)
	case errors.Is(err, ErrBusy):
		return status.Error(codes.ResourceExhausted, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	default:
		return status.Error(codes.Internal, err.Error())
	}
}

func toProto(o *Order) *orderspb.Order {
	if o == nil {
		return nil
	}
	return &orderspb.Order{Id: o.ID, User: o.User, Item: o.Item, Amount: o.Amount, Status: o.Status, Degraded: o.Degraded}
}
