package sentineliris_test

import (
	"net/http"
	"testing"

	"github.com/kataras/iris/v12"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sentineliris "github.com/sentinelgen/sentinelgen/adapters/iris"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The adapter adds one allocation to an admitted request (the entry, with
// the request copy that carries it) and a refused one costs no more.
func TestAllocations(t *testing.T) {
	got := webtest.MeasureAllocs(t, "/alloc/refused/{id}", func(protected bool, path string) func() int {
		a := iris.New()
		a.Logger().SetLevel("disable")
		if protected {
			a.Use(sentineliris.Middleware())
		}
		ok := func(ctx iris.Context) { ctx.StatusCode(http.StatusOK) }
		a.Get("/alloc/admitted/{id}", ok)
		a.Get("/alloc/refused/{id}", ok)
		require.NoError(t, a.Build())
		return webtest.ServeHTTP(a, path)
	})
	assert.Equal(t, webtest.RouteAllocs{Bare: 1, Admitted: 2, Refused: 2}, got)
}
