//go:build sentinelgolang

package compare

import (
	sgkratos "github.com/alibaba/sentinel-golang/pkg/adapters/kratos"
	"github.com/go-kratos/kratos/v2/middleware"
)

// Its client middleware names a call after its operation.
func init() {
	kratosAdapters = append(kratosAdapters, adapter[middleware.Middleware]{impl: "theirs",
		middleware: func() middleware.Middleware { return sgkratos.SentinelClientMiddleware() }, resource: kratosOperation})
}
