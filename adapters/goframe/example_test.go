package sentinelgoframe_test

import (
	"github.com/gogf/gf/v2/frame/g"
	"github.com/gogf/gf/v2/net/ghttp"

	sentinelgoframe "github.com/sentinelgen/sentinelgen/adapters/goframe"
)

func Example() {
	getOrder := func(r *ghttp.Request) { r.Response.Write("order ", r.Get("id")) }

	s := g.Server()
	s.Group("/api", func(group *ghttp.RouterGroup) {
		group.Middleware(sentinelgoframe.Middleware())
		group.GET("/order/:id", getOrder) // resource "/api/order/:id"
	})
	// s.Run()
}
