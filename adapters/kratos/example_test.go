package sentinelkratos_test

import (
	"context"

	"github.com/go-kratos/kratos/v2/middleware/recovery"
	"github.com/go-kratos/kratos/v2/transport/grpc"
	"github.com/go-kratos/kratos/v2/transport/http"

	sentinelkratos "github.com/sentinelgen/sentinelgen/adapters/kratos"
)

func Example() {
	// Each operation, "/api.order.v1.Order/GetOrder", is a resource.
	srv := grpc.NewServer(grpc.Middleware(recovery.Recovery(), sentinelkratos.Server()))
	hs := http.NewServer(http.Middleware(recovery.Recovery(), sentinelkratos.Server()))
	_, _ = srv, hs
}

func ExampleClient() {
	ctx := context.Background()
	conn, err := grpc.DialInsecure(ctx, grpc.WithEndpoint("127.0.0.1:9000"), grpc.WithMiddleware(sentinelkratos.Client()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
}
