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
// the request copy that carries it) and none to a refused one, which
// reuses the allocation a refusal before it left and answers with a
// header and body built once.
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
	assert.Equal(t, webtest.RouteAllocs{Bare: 1, Admitted: 2, Refused: 1}, got)
}
