//go:build sentinelgolang

package compare

import (
	sggozero "github.com/alibaba/sentinel-golang/pkg/adapters/go-zero"
	"github.com/zeromicro/go-zero/rest"
)

// Its middleware names a request after its method and path.
func init() {
	goZeroAdapters = append(goZeroAdapters, adapter[rest.Middleware]{impl: "theirs",
		middleware: func() rest.Middleware { return sggozero.SentinelMiddleware() }, resource: theirPathResource})
}
