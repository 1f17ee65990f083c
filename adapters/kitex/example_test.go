package sentinelkitex_test

import (
	"github.com/cloudwego/kitex/client"
	"github.com/cloudwego/kitex/server"

	sentinelkitex "github.com/sentinelgen/sentinelgen/adapters/kitex"
)

func Example() {
	// Pass these to the constructors Kitex generated for the service:
	// orderservice.NewServer(handler, serverOpt), and
	// orderservice.NewClient("OrderService", clientOpt).
	serverOpt := server.WithMiddleware(sentinelkitex.ServerMiddleware()) // "OrderService/GetOrder"
	clientOpt := client.WithMiddleware(sentinelkitex.ClientMiddleware())
	_, _ = serverOpt, clientOpt
}
