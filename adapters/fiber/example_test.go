package sentinelfiber_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"

	sentinelfiber "github.com/sentinelgen/sentinelgen/adapters/fiber"
)

func Example() {
	getOrder := func(c *fiber.Ctx) error { return c.SendString("order " + c.Params("id")) }

	app := fiber.New()
	app.Use(recover.New(), sentinelfiber.Middleware())
	app.Get("/api/order/:id", getOrder) // resource "/api/order/:id"

	resp, err := app.Test(httptest.NewRequest(http.MethodGet, "/api/order/42", nil), -1)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))
	// Output: 200 order 42
}
