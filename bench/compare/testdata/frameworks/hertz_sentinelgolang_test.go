//go:build sentinelgolang

package compare

import (
	sghertz "github.com/alibaba/sentinel-golang/pkg/adapters/hertz"
	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/client"
)

// Its server middleware names a request after its method and route, its
// client middleware after its method and path.
func init() {
	hertzClientAdapters = append(hertzClientAdapters, adapter[client.Middleware]{impl: "theirs",
		middleware: func() client.Middleware { return sghertz.SentinelClientMiddleware() }, resource: theirPathResource})
	hertzAdapters = append(hertzAdapters, adapter[app.HandlerFunc]{impl: "theirs",
		middleware: func() app.HandlerFunc { return sghertz.SentinelServerMiddleware() }, resource: theirRouteResource})
}
