package sentinelgrpc_test

import (
	"log"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc"
)

// A server whose methods are protected as inbound resources, and a client
// whose calls are protected as outbound ones, under the same names.
func Example() {
	target, creds := "orders.internal:9090", insecure.NewCredentials()

	srv := grpc.NewServer(
		grpc.ChainUnaryInterceptor(sentinelgrpc.UnaryServerInterceptor(sentinelgrpc.WithOriginKey("x-caller"))),
		grpc.ChainStreamInterceptor(sentinelgrpc.StreamServerInterceptor()),
	) // resource "/orders.OrderService/GetOrder", inbound

	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(creds),
		grpc.WithChainUnaryInterceptor(sentinelgrpc.UnaryClientInterceptor()),
		grpc.WithChainStreamInterceptor(sentinelgrpc.StreamClientInterceptor()),
	) // the same names, outbound
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	_ = srv
}
