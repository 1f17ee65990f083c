package sentinelmux_test

import (
	"net/http"
	"testing"

	"github.com/gorilla/mux"
	"github.com/stretchr/testify/assert"

	sentinelmux "github.com/sentinelgen/sentinelgen/adapters/gorillamux"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The adapter adds two allocations to an admitted request: the entry (with
// the request copy that carries it and the status writer), and the
// handler gorilla/mux wraps with every middleware on every request (a
// no-op middleware costs it too). A refused one costs only that handler:
// it reuses the allocation a refusal before it left, and its default
// answer is built once.
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
	assert.Equal(t, webtest.RouteAllocs{Bare: 8, Admitted: 10, Refused: 9}, got)
}
