package sentinelgin_test

import (
	"net/http"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"

	sentinelgin "github.com/sentinelgen/sentinelgen/adapters/gin"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The adapter adds one allocation to an admitted request (the entry, with
// the request copy that carries it) and none to a refused one, which
// reuses the allocation a refusal before it left and answers with a
// header and body built once.
func TestAllocations(t *testing.T) {
	got := webtest.MeasureAllocs(t, "/alloc/refused/:id", func(protected bool, path string) func() int {
		r := gin.New()
		if protected {
			r.Use(sentinelgin.Middleware())
		}
		ok := func(c *gin.Context) { c.Status(http.StatusOK) }
		r.GET("/alloc/admitted/:id", ok)
		r.GET("/alloc/refused/:id", ok)
		return webtest.ServeHTTP(r, path)
	})
	assert.Equal(t, webtest.RouteAllocs{Bare: 0, Admitted: 1, Refused: 0}, got)
}
