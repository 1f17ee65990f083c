package sentinelhertz_test

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/client"
	"github.com/cloudwego/hertz/pkg/app/server"

	sentinelhertz "github.com/sentinelgen/sentinelgen/adapters/hertz"
)

func Example() {
	getOrder := func(ctx context.Context, c *app.RequestContext) { c.String(200, "order "+c.Param("id")) }

	h := server.Default() // recovery included
	h.Use(sentinelhertz.Middleware())
	h.GET("/api/order/:id", getOrder) // resource "/api/order/:id"
	// h.Spin()
}

func ExampleClientMiddleware() {
	c, err := client.NewClient()
	if err != nil {
		panic(err)
	}
	c.Use(sentinelhertz.ClientMiddleware()) // "GET:http://host/api/order/42"
}
