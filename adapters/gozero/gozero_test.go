package sentinelgozero_test

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/zeromicro/go-zero/core/logx"
	"github.com/zeromicro/go-zero/core/proc"
	"github.com/zeromicro/go-zero/rest"
	"github.com/zeromicro/go-zero/rest/pathvar"

	sentinelgozero "github.com/sentinelgen/sentinelgen/adapters/gozero"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

func TestMain(m *testing.M) {
	logx.Disable()
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	m.Run()
}

// routes are the suite's two routes, plus one with two variables.
func routes() []rest.Route {
	return []rest.Route{
		{Method: http.MethodGet, Path: "/api/order/:id", Handler: func(w http.ResponseWriter, r *http.Request) {
			code, body := webtest.Order(r.Context(), pathvar.Vars(r)["id"])
			w.WriteHeader(code)
			_, _ = io.WriteString(w, body)
		}},
		{Method: http.MethodGet, Path: "/api/other", Handler: func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "other")
		}},
		{Method: http.MethodGet, Path: "/api/:kind/:id/lines", Handler: func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "lines")
		}},
		{Method: http.MethodGet, Path: "/api/:a/:b/pairs", Handler: func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "pairs")
		}},
	}
}

// serve starts a real go-zero server on a free loopback port, with its
// default middlewares (recovery among them), and stops it when t ends.
func serve(t *testing.T, use func(*rest.Server, []rest.Route)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())

	var c rest.RestConf
	c.Host, c.Port = "127.0.0.1", port
	c.Timeout = 10000
	c.Log.Mode = "console"
	c.Mode = "test"
	server, err := rest.NewServer(c)
	require.NoError(t, err)
	use(server, routes())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		server.Start()
	}()
	t.Cleanup(func() {
		proc.Shutdown() // shuts down every go-zero server this process started
		<-stopped
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	require.Eventually(t, func() bool {
		resp, err := http.Get(url + "/api/other")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return true
	}, 10*time.Second, 10*time.Millisecond, "go-zero serves")
	return url
}

func withServerUse(opts ...sentinelgozero.Option) func(*rest.Server, []rest.Route) {
	return func(s *rest.Server, rs []rest.Route) {
		s.Use(sentinelgozero.Middleware(opts...))
		s.AddRoutes(rs)
	}
}

func TestGoZero(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		url := serve(t, withServerUse())
		return webtest.Server{URL: url, Resource: "/api/order/:id", Other: "/api/other", HangUpsEndContext: true}
	})
}

func TestWithMiddlewaresProtectsTheRoutesItWraps(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, func(s *rest.Server, rs []rest.Route) {
		s.AddRoutes(rest.WithMiddlewares([]rest.Middleware{sentinelgozero.Middleware()}, rs[0]))
		s.AddRoutes(rs[1:])
	})
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "/api/order/:id", Grade: flow.GradeQPS, Count: 0}}))
	t.Cleanup(func() { require.NoError(t, flow.LoadRules(nil)) })
	resp := get(t, url+"/api/order/1")
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, http.StatusOK, get(t, url+"/api/k/7/lines").StatusCode)
	assert.Nil(t, runtime.LookupResource("/api/:kind/:id/lines"), "a route without the middleware is not a resource")
}

func TestTheRoutePatternIsLearntFromAnUnambiguousRequest(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, withServerUse(nethttp.WithMethodPrefix()))
	// "order" stands in a literal segment too: read right to left, the
	// last segment is the variable, right here, but nothing is learnt.
	assert.Equal(t, http.StatusOK, get(t, url+"/api/order/order").StatusCode)
	assert.NotNil(t, runtime.LookupResource("GET:/api/order/:id"))
	assert.Nil(t, runtime.LookupResource("GET:/api/:id/order"))
	// Learnt once, from an unambiguous request; then every request is
	// named after it, however ambiguous.
	assert.Equal(t, http.StatusOK, get(t, url+"/api/a/b/lines").StatusCode)
	assert.Equal(t, http.StatusOK, get(t, url+"/api/lines/lines/lines").StatusCode)
	require.NotNil(t, runtime.LookupResource("GET:/api/:kind/:id/lines"))
	assert.Nil(t, runtime.LookupResource("GET:/api/:id/:kind/lines"))
}

// Two variables holding the same value cannot tell which is which: before
// the route's pattern is learnt, such a request is named after the
// candidate that a rule protects, so that a caller cannot pick a name that
// escapes the route's rules.
func TestAnAmbiguousRequestIsHeldToTheRouteRules(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, withServerUse(nethttp.WithMethodPrefix()))
	assert.Equal(t, http.StatusOK, get(t, url+"/api/1/2/pairs").StatusCode)
	loadFlowRule(t, "GET:/api/:a/:b/pairs")

	// A second server: its middleware has learnt nothing. Read right to
	// left in name order, the first candidate would be /api/:b/:a/pairs.
	url = serve(t, withServerUse(nethttp.WithMethodPrefix()))
	for i := range 8 {
		assert.Equal(t, http.StatusTooManyRequests, get(t, url+"/api/x/x/pairs").StatusCode, "request %d", i)
	}
	assert.Nil(t, runtime.LookupResource("GET:/api/:b/:a/pairs"))
}

func loadFlowRule(t *testing.T, resource string) {
	t.Helper()
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: resource, Grade: flow.GradeQPS, Count: 0}}))
	t.Cleanup(func() { require.NoError(t, flow.LoadRules(nil)) })
}

func TestUnmatchedRequestsAreNotProtected(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, withServerUse(nethttp.WithUnmatchedPath()))
	assert.Equal(t, http.StatusNotFound, get(t, url+"/gozero/nowhere").StatusCode)
	assert.Nil(t, runtime.LookupResource("/gozero/nowhere"))
}

func get(t *testing.T, url string) *http.Response {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	return resp
}
