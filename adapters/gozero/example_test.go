package sentinelgozero_test

import (
	"io"
	"net/http"

	"github.com/zeromicro/go-zero/rest"
	"github.com/zeromicro/go-zero/rest/pathvar"

	sentinelgozero "github.com/sentinelgen/sentinelgen/adapters/gozero"
)

func Example() {
	getOrder := func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "order "+pathvar.Vars(r)["id"])
	}

	server := rest.MustNewServer(rest.RestConf{Host: "127.0.0.1", Port: 8888})
	server.Use(sentinelgozero.Middleware())
	server.AddRoute(rest.Route{Method: http.MethodGet, Path: "/api/order/:id", Handler: getOrder}) // resource "/api/order/:id"
	// server.Start()
}
