package sentinelhertz_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/app/middlewares/server/recovery"
	"github.com/cloudwego/hertz/pkg/app/server"
	"github.com/cloudwego/hertz/pkg/common/hlog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sentinelhertz "github.com/sentinelgen/sentinelgen/adapters/hertz"
	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

func TestMain(m *testing.M) {
	hlog.SetOutput(io.Discard)
	hlog.SetSilentMode(true)
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	m.Run()
}

// otherCalls counts the calls that reached /api/other.
var otherCalls atomic.Int64

// serve runs Hertz on a real listener on 127.0.0.1, with recovery, opts'
// middleware and the suite's two routes, until t ends.
func serve(t *testing.T, sense bool, opts ...sentinelhertz.Option) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	h := server.New(server.WithListener(l), server.WithSenseClientDisconnection(sense),
		server.WithExitWaitTime(time.Millisecond), server.WithDisablePrintRoute(true))
	h.Use(recovery.Recovery(), sentinelhertz.Middleware(opts...))
	h.GET("/api/order/:id", func(ctx context.Context, c *app.RequestContext) {
		code, body := webtest.Order(ctx, c.Param("id"))
		c.String(code, body)
	})
	h.GET("/api/other", func(ctx context.Context, c *app.RequestContext) {
		otherCalls.Add(1)
		c.String(http.StatusOK, "other")
	})
	h.GET("/api/fail", func(ctx context.Context, c *app.RequestContext) { c.String(http.StatusBadGateway, "upstream down") })
	go func() { _ = h.Run() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
	})
	url := "http://" + l.Addr().String()
	require.Eventually(t, func() bool {
		resp, err := http.Get(url + "/api/other")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return true
	}, 10*time.Second, 10*time.Millisecond, "hertz serves")
	return url
}

func TestHertz(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		return webtest.Server{URL: serve(t, false), Resource: "/api/order/:id", Other: "/api/other"}
	})
}

func TestHertzSensingHangUps(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		return webtest.Server{URL: serve(t, true), Resource: "/api/order/:id", Other: "/api/other", HangUpsEndContext: true}
	})
}

func TestUnmatchedRequestsAreNotProtectedByDefault(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, false)
	assert.Equal(t, http.StatusNotFound, get(t, url+"/hertz/nowhere").StatusCode)
	assert.Nil(t, runtime.LookupResource("/hertz/nowhere"))

	url = serve(t, false, sentinelhertz.WithUnmatchedPath())
	assert.Equal(t, http.StatusNotFound, get(t, url+"/hertz/unmatched").StatusCode)
	assert.NotNil(t, runtime.LookupResource("/hertz/unmatched"), "WithUnmatchedPath protects it under its path")
}

func TestMethodPrefixNamesTheRouteWithItsMethod(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, false, sentinelhertz.WithMethodPrefix())
	assert.Equal(t, http.StatusOK, get(t, url+"/api/other").StatusCode)
	assert.NotNil(t, runtime.LookupResource("GET:/api/other"))
}

func TestTheOriginComesFromAHeader(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, false, sentinelhertz.WithOriginParser(sentinelhertz.OriginFromHeader("S-User")))
	req, err := http.NewRequest(http.MethodGet, url+"/api/other", nil)
	require.NoError(t, err)
	req.Header.Set("S-User", "billing")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	node := runtime.LookupResource("/api/other").ClusterNode()
	assert.NotNil(t, node.OriginNode("billing"), "counted for its origin")
}

func get(t *testing.T, url string) *http.Response {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	return resp
}

// A block handler that writes after the default answer adds to its body,
// as after net/http's: the default answer's body is the response's own.
func TestWritingAfterTheDefaultAnswerAppends(t *testing.T) {
	for range 2 {
		c := app.NewContext(0)
		sentinelhertz.DefaultBlockHandler(context.Background(), c, nil)
		_, err := c.WriteString("try again later\n")
		assert.NoError(t, err)
		assert.Equal(t, http.StatusTooManyRequests, c.Response.StatusCode())
		assert.Equal(t, web.BlockMessage+"\ntry again later\n", string(c.Response.Body()))
	}
}
