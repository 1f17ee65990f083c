package sentineliris_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/kataras/iris/v12"
	"github.com/kataras/iris/v12/middleware/recover"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sentineliris "github.com/sentinelgen/sentinelgen/adapters/iris"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	m.Run()
}

// app is the suite's two routes on Iris, behind recovery and opts'
// middleware, plus a typed route in a party.
func app(opts ...sentineliris.Option) *iris.Application {
	a := iris.New()
	a.Logger().SetLevel("disable")
	a.UseRouter(recover.New())
	a.Use(sentineliris.Middleware(opts...))
	a.Get("/api/order/{id}", func(ctx iris.Context) {
		code, body := webtest.Order(ctx.Request().Context(), ctx.Params().Get("id"))
		ctx.StatusCode(code)
		_, _ = ctx.WriteString(body)
	})
	a.Get("/api/other", func(ctx iris.Context) { _, _ = ctx.WriteString("other") })
	a.Party("/api/typed").Get("/{n:uint64}", func(ctx iris.Context) { _, _ = ctx.WriteString("typed") })
	return a
}

// serve runs a on a real listener on 127.0.0.1 until t ends.
func serve(t *testing.T, a *iris.Application) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	stopped := make(chan error, 1)
	go func() {
		stopped <- a.Run(iris.Listener(l), iris.WithoutStartupLog, iris.WithoutInterruptHandler, iris.WithoutServerError(iris.ErrServerClosed))
	}()
	t.Cleanup(func() {
		require.NoError(t, a.Shutdown(context.Background()))
		if err := <-stopped; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("iris: %v", err)
		}
	})
	return "http://" + l.Addr().String()
}

func TestIris(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		return webtest.Server{URL: serve(t, app()), Resource: "/api/order/{id}", Other: "/api/other", HangUpsEndContext: true}
	})
}

func TestTheResourceIsTheRegisteredTemplate(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, app(nethttp.WithMethodPrefix()))
	assert.Equal(t, http.StatusOK, get(t, url+"/api/typed/12").StatusCode)
	assert.NotNil(t, runtime.LookupResource("GET:/api/typed/{n:uint64}"), "party prefix and parameter type included")
}

func TestUnmatchedRequestsAreNotProtectedByDefault(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, app())
	assert.Equal(t, http.StatusNotFound, get(t, url+"/iris/nowhere").StatusCode)
	assert.Nil(t, runtime.LookupResource("/iris/nowhere"))

	// From UseRouter, before routing, no request has a route yet.
	a := iris.New()
	a.Logger().SetLevel("disable")
	a.UseRouter(sentineliris.Middleware(nethttp.WithUnmatchedPath()))
	a.Get("/api/other", func(ctx iris.Context) { _, _ = ctx.WriteString("other") })
	url = serve(t, a)
	assert.Equal(t, http.StatusNotFound, get(t, url+"/iris/unmatched").StatusCode)
	assert.NotNil(t, runtime.LookupResource("/iris/unmatched"), "WithUnmatchedPath protects it under its path")
}

func get(t *testing.T, url string) *http.Response {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	return resp
}
