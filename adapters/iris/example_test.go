package sentineliris_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/kataras/iris/v12"
	"github.com/kataras/iris/v12/middleware/recover"

	sentineliris "github.com/sentinelgen/sentinelgen/adapters/iris"
)

func Example() {
	getOrder := func(ctx iris.Context) { _, _ = ctx.WriteString("order " + ctx.Params().Get("id")) }

	app := iris.New()
	app.UseRouter(recover.New())
	app.Use(sentineliris.Middleware())
	app.Get("/api/order/{id}", getOrder) // resource "/api/order/{id}"

	if err := app.Build(); err != nil {
		panic(err)
	}
	w := httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/order/42", nil))
	fmt.Println(w.Code, w.Body.String())
	// Output: 200 order 42
}
