package sentinelecho_test

import (
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"

	sentinelecho "github.com/sentinelgen/sentinelgen/adapters/echo"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The adapter adds one allocation to an admitted request, the entry (with
// the request copy that carries it), and none to a refused one, which
// reuses the allocation a refusal before it left and answers with a
// header and body built once. echo applies the middleware of e.Use to the
// route's handler on every request (a no-op middleware costs it a
// closure): the adapter hands back the handler it made for that route
// before.
func TestAllocations(t *testing.T) {
	got := webtest.MeasureAllocs(t, "/alloc/refused/:id", func(protected bool, path string) func() int {
		e := echo.New()
		if protected {
			e.Use(sentinelecho.Middleware())
		}
		ok := func(c echo.Context) error { return c.NoContent(http.StatusOK) }
		e.GET("/alloc/admitted/:id", ok)
		e.GET("/alloc/refused/:id", ok)
		return webtest.ServeHTTP(e, path)
	})
	assert.Equal(t, webtest.RouteAllocs{Bare: 0, Admitted: 1, Refused: 0}, got)
}
