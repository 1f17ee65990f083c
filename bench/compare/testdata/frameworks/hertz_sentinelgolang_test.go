//go:build sentinelgolang

package compare

import (
	sghertz "github.com/alibaba/sentinel-golang/pkg/adapters/hertz"
	"github.com/cloudwego/hertz/pkg/app"
)

// Its server middleware names a request after its method and route.
func init() {
	hertzAdapters = append(hertzAdapters, adapter[app.HandlerFunc]{impl: "theirs",
		middleware: func() app.HandlerFunc { return sghertz.SentinelServerMiddleware() }, resource: theirRouteResource})
}
