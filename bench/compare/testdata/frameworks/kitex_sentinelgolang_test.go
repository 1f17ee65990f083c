//go:build sentinelgolang

package compare

import (
	sgkitex "github.com/alibaba/sentinel-golang/pkg/adapters/kitex"
	"github.com/cloudwego/kitex/pkg/endpoint"
)

// Its middleware names a call "service:method" after the callee.
func init() {
	kitexClientAdapters = append(kitexClientAdapters, adapter[endpoint.Middleware]{impl: "theirs",
		middleware: func() endpoint.Middleware { return sgkitex.SentinelClientMiddleware() }, resource: "OrderService:GetOrder"})
	kitexAdapters = append(kitexAdapters, adapter[endpoint.Middleware]{impl: "theirs",
		middleware: func() endpoint.Middleware { return sgkitex.SentinelServerMiddleware() }, resource: "OrderService:GetOrder"})
}
