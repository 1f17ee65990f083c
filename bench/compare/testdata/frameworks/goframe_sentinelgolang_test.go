//go:build sentinelgolang

package compare

import (
	sggoframe "github.com/alibaba/sentinel-golang/pkg/adapters/goframe"
	"github.com/gogf/gf/v2/net/ghttp"
)

// Its middleware names a request after its method and path.
func init() {
	goFrameAdapters = append(goFrameAdapters, adapter[ghttp.HandlerFunc]{impl: "theirs",
		middleware: func() ghttp.HandlerFunc { return sggoframe.SentinelMiddleware() }, resource: theirPathResource})
}
