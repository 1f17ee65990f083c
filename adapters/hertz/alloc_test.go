package sentinelhertz_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/client"
	"github.com/cloudwego/hertz/pkg/app/server"
	"github.com/cloudwego/hertz/pkg/protocol"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sentinelhertz "github.com/sentinelgen/sentinelgen/adapters/hertz"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// The adapter adds one allocation to an admitted request (the entry) and
// a refused one costs no more: its default answer is written from values
// built once.
func TestAllocations(t *testing.T) {
	got := webtest.MeasureAllocs(t, "/alloc/refused/:id", func(protected bool, path string) func() int {
		h := server.New(server.WithDisablePrintRoute(true))
		if protected {
			h.Use(sentinelhertz.Middleware())
		}
		ok := func(_ context.Context, c *app.RequestContext) { c.Status(http.StatusOK) }
		h.GET("/alloc/admitted/:id", ok)
		h.GET("/alloc/refused/:id", ok)
		require.NoError(t, h.Init())
		c := h.NewContext()
		return func() int {
			c.ResetWithoutConn()
			c.Request.SetRequestURI(path)
			c.Request.Header.SetMethod(http.MethodGet)
			h.ServeHTTP(context.Background(), c)
			return c.Response.StatusCode()
		}
	})
	assert.Equal(t, webtest.RouteAllocs{Bare: 1, Admitted: 2, Refused: 2}, got)
}

// The client middleware adds one allocation to a call it admits and to
// one it refuses, the entry: a request's resource name is built once and
// found again by the request's method and URL, without building it.
func TestClientAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	refused := "GET:http://alloc.example/refused/42"
	webtest.Refuse(t, refused)
	measure := func(mw client.Middleware, url string) float64 {
		call := clientCall(mw, url)
		call()
		return testing.AllocsPerRun(200, func() { _ = call() })
	}
	bare := measure(nil, "http://alloc.example/admitted/42")
	admitted := measure(sentinelhertz.ClientMiddleware(), "http://alloc.example/admitted/42")
	blocked := measure(sentinelhertz.ClientMiddleware(), "http://alloc.example/refused/42")
	assert.Equal(t, []float64{0, 1, 1}, []float64{bare, admitted, blocked}, "bare, admitted, refused")
	require.ErrorIs(t, clientCall(sentinelhertz.ClientMiddleware(), "http://alloc.example/refused/42")(), runtime.ErrBlocked)
}

// clientCall returns a call of GET url through the client middleware mw
// (none when nil) to an endpoint that answers 200 without sending it.
func clientCall(mw client.Middleware, url string) func() error {
	next := client.Endpoint(func(_ context.Context, _ *protocol.Request, resp *protocol.Response) error {
		resp.SetStatusCode(http.StatusOK)
		return nil
	})
	if mw != nil {
		next = mw(next)
	}
	req, resp := protocol.AcquireRequest(), protocol.AcquireResponse()
	req.SetRequestURI(url)
	req.Header.SetMethod(http.MethodGet)
	ctx := context.Background()
	return func() error { return next(ctx, req, resp) }
}
