//go:build sentinelgolang

package compare

import (
	sgecho "github.com/alibaba/sentinel-golang/pkg/adapters/echo"
	sggin "github.com/alibaba/sentinel-golang/pkg/adapters/gin"
	sggrpc "github.com/alibaba/sentinel-golang/pkg/adapters/grpc"
	"github.com/gin-gonic/gin"
	"github.com/labstack/echo/v4"
	"google.golang.org/grpc"
)

// sentinel-golang's adapters for the frameworks of this module, with their
// default options.
func init() {
	ginAdapters = append(ginAdapters, adapter[gin.HandlerFunc]{impl: "theirs",
		middleware: func() gin.HandlerFunc { return sggin.SentinelMiddleware() }, resource: theirRouteResource})
	echoAdapters = append(echoAdapters, adapter[echo.MiddlewareFunc]{impl: "theirs",
		middleware: func() echo.MiddlewareFunc { return sgecho.SentinelMiddleware() }, resource: theirRouteResource})
	grpcAdapters = append(grpcAdapters, adapter[grpc.UnaryServerInterceptor]{impl: "theirs",
		middleware: func() grpc.UnaryServerInterceptor { return sggrpc.NewUnaryServerInterceptor() }, resource: grpcMethod})
}
