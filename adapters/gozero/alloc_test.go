package sentinelgozero_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zeromicro/go-zero/rest/router"

	sentinelgozero "github.com/sentinelgen/sentinelgen/adapters/gozero"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The adapter adds one allocation to an admitted request (the entry, with
// the request copy that carries it and the status writer) and none to a
// refused one, which reuses the allocation a refusal before it left and
// answers with a header and body built once. The
// routes' chains are built as go-zero's server builds them.
func TestAllocations(t *testing.T) {
	got := webtest.MeasureAllocs(t, "/alloc/refused/:id", func(protected bool, path string) func() int {
		rt := router.NewRouter()
		for _, p := range []string{"/alloc/admitted/:id", "/alloc/refused/:id"} {
			var h http.HandlerFunc = func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }
			if protected {
				h = sentinelgozero.Middleware()(h)
			}
			require.NoError(t, rt.Handle(http.MethodGet, p, h))
		}
		return webtest.ServeHTTP(rt, path)
	})
	assert.Equal(t, webtest.RouteAllocs{Bare: 5, Admitted: 6, Refused: 5}, got)
}
