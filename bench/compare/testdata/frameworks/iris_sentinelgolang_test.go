//go:build sentinelgolang

package compare

import (
	sgiris "github.com/alibaba/sentinel-golang/pkg/adapters/iris"
	"github.com/kataras/iris/v12"
)

// Its middleware names a request after its method and URL.
func init() {
	irisAdapters = append(irisAdapters, adapter[iris.Handler]{impl: "theirs",
		middleware: func() iris.Handler { return sgiris.SentinelMiddleware() }, resource: theirPathResource})
}
