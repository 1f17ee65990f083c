package sentinelecho_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	sentinelecho "github.com/sentinelgen/sentinelgen/adapters/echo"
)

func Example() {
	getOrder := func(c echo.Context) error { return c.String(http.StatusOK, "order "+c.Param("id")) }

	e := echo.New()
	e.Use(middleware.Recover(), sentinelecho.Middleware())
	e.GET("/api/order/:id", getOrder) // resource "/api/order/:id"

	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/order/42", nil))
	fmt.Println(w.Code, w.Body.String())
	// Output: 200 order 42
}
