package sentinelgin_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/gin-gonic/gin"

	sentinelgin "github.com/sentinelgen/sentinelgen/adapters/gin"
)

func Example() {
	getOrder := func(c *gin.Context) { c.String(http.StatusOK, "order "+c.Param("id")) }

	r := gin.New()
	r.Use(gin.Recovery(), sentinelgin.Middleware())
	r.GET("/api/order/:id", getOrder) // resource "/api/order/:id"

	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/order/42", nil))
	fmt.Println(w.Code, w.Body.String())
	// Output: 200 order 42
}
