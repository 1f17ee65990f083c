package sentinelecho_test

import (
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"

	sentinelecho "github.com/sentinelgen/sentinelgen/adapters/echo"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The adapter adds two allocations to an admitted request: the entry (with
// the request copy that carries it), and the closure echo makes of every
// middleware on every request (a no-op middleware costs it too). A
// refused one costs only the closure: it reuses the allocation a refusal
// before it left, and its default answer is built once.
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
	assert.Equal(t, webtest.RouteAllocs{Bare: 0, Admitted: 2, Refused: 1}, got)
}
