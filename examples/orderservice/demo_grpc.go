package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/examples/orderservice/orderspb"
)

// grpcGetOrder is the resource of the gRPC method the demo calls: its full
// method name.
const grpcGetOrder = orderspb.OrderService_GetOrder_FullMethodName

// grpcLoad sends the demo's gRPC calls and counts the answers by status.
// Its client has no Sentinel interceptor: in this one process a client
// interceptor would count its calls on the same resources as the server's.
type grpcLoad struct {
	conn   *grpc.ClientConn
	client orderspb.OrderServiceClient
	ok     atomic.Int64
	// exhausted counts RESOURCE_EXHAUSTED answers: calls Sentinel refused.
	exhausted, other atomic.Int64
}

func dialGRPCLoad(addr string) (*grpcLoad, error) {
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	return &grpcLoad{conn: conn, client: orderspb.NewOrderServiceClient(conn)}, nil
}

// every calls GetOrder perSecond times a second until ctx ends.
func (g *grpcLoad) every(ctx context.Context, wg *sync.WaitGroup, perSecond int) {
	every(ctx, wg, perSecond, func() {
		_, err := g.client.GetOrder(ctx, &orderspb.GetOrderRequest{Id: 1})
		g.count(ctx, err)
	})
}

func (g *grpcLoad) count(ctx context.Context, err error) {
	switch status.Code(err) {
	case codes.OK:
		g.ok.Add(1)
	case codes.ResourceExhausted:
		g.exhausted.Add(1)
	default:
		if ctx.Err() == nil { // calls cut off by the demo's end are not counted
			g.other.Add(1)
		}
	}
}

// summary prints what the gRPC calls got.
func (g *grpcLoad) summary(w io.Writer) {
	fmt.Fprintf(w, "gRPC calls: %d answered OK, %d answered RESOURCE_EXHAUSTED, %d other\n",
		g.ok.Load(), g.exhausted.Load(), g.other.Load())
}

func (g *grpcLoad) Close() error { return g.conn.Close() }
