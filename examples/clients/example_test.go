package clients_test

import (
	"database/sql"
	"database/sql/driver"
	"log"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/sentinelgen/sentinelgen/examples/clients"
	"github.com/sentinelgen/sentinelgen/examples/orderservice/orderspb"
)

// A generated gRPC client, protected: each of its methods is a resource
// (orders.GetOrder, ...) that flow, circuit-breaking and system rules
// apply to.
func ExampleProtectOrdersClient() {
	conn, err := grpc.NewClient("orders.internal:9090", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	orders := clients.ProtectOrdersClient(orderspb.NewOrderServiceClient(conn))
	_ = orders // call it as the generated client: orders.GetOrder(ctx, req)
}

// A database/sql driver, protected: each query enters db.QueryContext,
// each ping db.Ping.
func ExampleProtectDriver() {
	var pq driver.Driver // the driver's own, e.g. &pq.Driver{}
	sql.Register("postgres+sentinel", clients.ProtectDriver(pq))
}
