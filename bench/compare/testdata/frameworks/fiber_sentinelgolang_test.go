//go:build sentinelgolang

package compare

import (
	sgfiber "github.com/alibaba/sentinel-golang/pkg/adapters/fiber"
	"github.com/gofiber/fiber/v2"
)

// Its middleware names a request after its method and path.
func init() {
	fiberAdapters = append(fiberAdapters, adapter[fiber.Handler]{impl: "theirs",
		middleware: func() fiber.Handler { return sgfiber.SentinelMiddleware() }, resource: theirPathResource})
}
