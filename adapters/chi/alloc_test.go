package sentinelchi_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"

	sentinelchi "github.com/sentinelgen/sentinelgen/adapters/chi"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The adapter adds one allocation to an admitted request (the entry, with
// the request copy that carries it and the status writer). A refused one
// reuses the allocation a refusal before it left, answers with a header
// and body built once, and spares chi's routing to the handler: fewer
// than bare.
func TestAllocations(t *testing.T) {
	got := webtest.MeasureAllocs(t, "/alloc/refused/{id}", func(protected bool, path string) func() int {
		r := chi.NewRouter()
		if protected {
			r.Use(sentinelchi.Middleware())
		}
		ok := func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }
		r.Get("/alloc/admitted/{id}", ok)
		r.Get("/alloc/refused/{id}", ok)
		return webtest.ServeHTTP(r, path)
	})
	assert.Equal(t, webtest.RouteAllocs{Bare: 4, Admitted: 5, Refused: 2}, got)
}
