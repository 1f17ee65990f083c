package sentinelchi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	sentinelchi "github.com/sentinelgen/sentinelgen/adapters/chi"
)

func Example() {
	getOrder := func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "order "+chi.URLParam(r, "id")) }

	r := chi.NewRouter()
	r.Use(middleware.Recoverer, sentinelchi.Middleware())
	r.Get("/api/order/{id}", getOrder) // resource "/api/order/{id}"

	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/order/42", nil))
	fmt.Println(w.Code, w.Body.String())
	// Output: 200 order 42
}
