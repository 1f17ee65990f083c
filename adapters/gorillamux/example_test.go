package sentinelmux_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/gorilla/mux"

	sentinelmux "github.com/sentinelgen/sentinelgen/adapters/gorillamux"
)

func Example() {
	getOrder := func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "order "+mux.Vars(r)["id"]) }

	r := mux.NewRouter()
	r.Use(sentinelmux.Middleware())
	r.HandleFunc("/api/order/{id}", getOrder).Methods("GET") // resource "/api/order/{id}"

	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/order/42", nil))
	fmt.Println(w.Code, w.Body.String())
	// Output: 200 order 42
}
