package sentinelhertz_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sentinelhertz "github.com/sentinelgen/sentinelgen/adapters/hertz"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The adapter adds one allocation to an admitted request (the entry) and
// a refused one costs no more: its default answer is written from values
// built once.
func TestAllocations(t *testing.T) {
	got := webtest.MeasureAllocs(t, "/alloc/refused/:id", func(protected bool, path string) func() int {
		h := server.New(server.WithDisablePrintRoute(true))
		if protected {
			h.Use(sentinelhertz.Middleware())
		}
		ok := func(_ context.Context, c *app.RequestContext) { c.Status(http.StatusOK) }
		h.GET("/alloc/admitted/:id", ok)
		h.GET("/alloc/refused/:id", ok)
		require.NoError(t, h.Init())
		c := h.NewContext()
		return func() int {
			c.ResetWithoutConn()
			c.Request.SetRequestURI(path)
			c.Request.Header.SetMethod(http.MethodGet)
			h.ServeHTTP(context.Background(), c)
			return c.Response.StatusCode()
		}
	})
	assert.Equal(t, webtest.RouteAllocs{Bare: 1, Admitted: 2, Refused: 2}, got)
}
