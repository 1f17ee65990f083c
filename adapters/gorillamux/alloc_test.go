package sentinelmux_test

import (
	"net/http"
	"testing"

	"github.com/gorilla/mux"
	"github.com/stretchr/testify/assert"

	sentinelmux "github.com/sentinelgen/sentinelgen/adapters/gorillamux"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The adapter adds one allocation to an admitted request, the entry (with
// the request copy that carries it and the status writer), and none to a
// refused one, which reuses the allocation a refusal before it left and
// answers with a header and body built once. gorilla/mux wraps the route's
// handler with every middleware on every request (a no-op middleware
// costs it an allocation): the adapter hands back the middleware it made
// for that handler before.
func TestAllocations(t *testing.T) {
	got := webtest.MeasureAllocs(t, "/alloc/refused/{id}", func(protected bool, path string) func() int {
		r := mux.NewRouter()
		if protected {
			r.Use(sentinelmux.Middleware())
		}
		ok := func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }
		r.HandleFunc("/alloc/admitted/{id}", ok)
		r.HandleFunc("/alloc/refused/{id}", ok)
		return webtest.ServeHTTP(r, path)
	})
	assert.Equal(t, webtest.RouteAllocs{Bare: 8, Admitted: 9, Refused: 8}, got)
}
