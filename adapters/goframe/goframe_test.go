package sentinelgoframe_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/gogf/gf/v2/errors/gcode"
	"github.com/gogf/gf/v2/errors/gerror"
	"github.com/gogf/gf/v2/frame/g"
	"github.com/gogf/gf/v2/net/ghttp"
	"github.com/gogf/gf/v2/os/glog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sentinelgoframe "github.com/sentinelgen/sentinelgen/adapters/goframe"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	m.Run()
}

func order(r *ghttp.Request) {
	code, body := webtest.Order(r.Context(), r.Get("id").String())
	r.Response.WriteStatus(code, body)
}

func other(r *ghttp.Request) { r.Response.Write("other") }

var servers int

// serve starts a real GoFrame server on a free loopback port, its routes
// bound by bind, and stops it when t ends.
func serve(t testing.TB, bind func(s *ghttp.Server)) string {
	t.Helper()
	servers++ // GetServer returns the server of a name, started or not
	s := ghttp.GetServer(fmt.Sprint(t.Name(), servers))
	s.SetAddr("127.0.0.1:0")
	s.SetDumpRouterMap(false)
	s.SetAccessLogEnabled(false)
	s.SetErrorLogEnabled(false)
	s.SetLogger(glog.New())
	s.Logger().SetStdoutPrint(false)
	s.SetGraceful(false)
	bind(s)
	require.NoError(t, s.Start())
	t.Cleanup(func() { _ = s.Shutdown() })
	return fmt.Sprintf("http://127.0.0.1:%d", s.GetListenedPort())
}

// grouped binds the suite's two routes in a group behind opts' middleware.
func grouped(opts ...sentinelgoframe.Option) func(s *ghttp.Server) {
	return func(s *ghttp.Server) {
		s.Group("/api", func(group *ghttp.RouterGroup) {
			group.Middleware(sentinelgoframe.Middleware(opts...))
			group.GET("/order/:id", order)
			group.GET("/other", other)
		})
	}
}

func TestGoFrame(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		return webtest.Server{URL: serve(t, grouped()), Resource: "/api/order/:id", Other: "/api/other", HangUpsEndContext: true}
	})
}

func TestGoFrameGlobalMiddleware(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		url := serve(t, func(s *ghttp.Server) {
			s.Use(sentinelgoframe.Middleware())
			s.BindHandler("GET:/api/order/:id", order)
			s.BindHandler("GET:/api/other", other)
		})
		return webtest.Server{URL: url, Resource: "/api/order/:id", Other: "/api/other", HangUpsEndContext: true}
	})
}

type items struct{}

func (items) Show(r *ghttp.Request) { r.Response.Write("item") }

func TestTheResourceIsThePatternAsRegistered(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, func(s *ghttp.Server) {
		s.Use(sentinelgoframe.Middleware(nethttp.WithMethodPrefix()))
		s.BindHandler("GET:/api/item/{id}", other)
		s.Group("/api/v2", func(group *ghttp.RouterGroup) {
			group.GET("/item/*any", other)
			group.Bind(new(items))
		})
	})
	for path, resource := range map[string]string{
		"/api/item/7":      "GET:/api/item/{id}",
		"/api/v2/item/a/b": "GET:/api/v2/item/*any",
		"/api/v2/show":     "GET:/api/v2/show",
	} {
		assert.Equal(t, http.StatusOK, get(t, url+path).StatusCode, path)
		assert.NotNil(t, runtime.LookupResource(resource), "%s is %s", path, resource)
	}
}

func TestUnmatchedRequestsAreNotProtectedByDefault(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, func(s *ghttp.Server) {
		s.Use(sentinelgoframe.Middleware())
		s.BindHandler("GET:/api/other", other)
	})
	assert.Equal(t, http.StatusNotFound, get(t, url+"/goframe/nowhere").StatusCode)
	assert.Nil(t, runtime.LookupResource("/goframe/nowhere"))

	url = serve(t, func(s *ghttp.Server) {
		s.Use(sentinelgoframe.Middleware(nethttp.WithUnmatchedPath()))
		s.BindHandler("GET:/api/other", other)
	})
	assert.Equal(t, http.StatusNotFound, get(t, url+"/goframe/unmatched").StatusCode)
	assert.NotNil(t, runtime.LookupResource("/goframe/unmatched"), "WithUnmatchedPath protects it under its path")
}

func get(t *testing.T, url string) *http.Response {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	return resp
}

type orderReq struct {
	g.Meta `path:"/api/typed/{id}" method:"get"`
	ID     string `json:"id" in:"path"`
}

type orderRes struct {
	Order string `json:"order"`
}

type typed struct{}

func (typed) Get(_ context.Context, req *orderReq) (*orderRes, error) {
	if req.ID == "fail" {
		return nil, gerror.NewCode(gcode.CodeInternalError, "the database is down")
	}
	return &orderRes{Order: "order " + req.ID}, nil
}

// A standard handler's error is answered 200 by
// MiddlewareHandlerResponse, with the error's code in the body: it is
// the route's error all the same.
func TestAStandardHandlersErrorOpensTheBreaker(t *testing.T) {
	clk := clocktest.Install(t)
	url := serve(t, func(s *ghttp.Server) {
		s.Group("/", func(group *ghttp.RouterGroup) {
			group.Middleware(ghttp.MiddlewareHandlerResponse, sentinelgoframe.Middleware())
			group.Bind(new(typed))
		})
	})
	const resource = "/api/typed/{id}"
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: resource, Grade: degrade.ErrorCount,
		Count: 2, MinRequestAmount: 1, TimeWindow: 60, StatIntervalMs: 60000}}))
	t.Cleanup(func() { require.NoError(t, degrade.LoadRules(nil)) })
	for range 3 {
		assert.Equal(t, http.StatusOK, get(t, url+"/api/typed/fail").StatusCode, "GoFrame's answer")
	}
	assert.Equal(t, 3.0, runtime.LookupResource(resource).ClusterNode().ExceptionQPS(clk.Millis()))
	assert.Equal(t, http.StatusTooManyRequests, get(t, url+"/api/typed/1").StatusCode, "the breaker is open")
}

type outerKey struct{}

// The handlers see the entry in the request's context, set in place;
// middleware that ran before the adapter sees its own context again once
// the adapter returns, without what the handlers added.
func TestOuterMiddlewareSeesItsOwnContextAgain(t *testing.T) {
	var before, inHandler, after string
	var handlerValue, afterValue any
	url := serve(t, func(s *ghttp.Server) {
		s.Group("/", func(group *ghttp.RouterGroup) {
			group.Middleware(func(r *ghttp.Request) {
				r.SetCtxVar(outerKey{}, "outer")
				before, _ = runtime.ContextName(r.Context())
				r.Middleware.Next()
				after, _ = runtime.ContextName(r.Context())
				afterValue = r.Context().Value(handlerKey{})
				assert.Equal(t, "outer", r.Context().Value(outerKey{}))
			}, sentinelgoframe.Middleware())
			group.GET("/ctx/:id", func(r *ghttp.Request) {
				inHandler, _ = runtime.ContextName(r.Context())
				assert.Equal(t, "outer", r.Context().Value(outerKey{}), "the outer middleware's values")
				r.SetCtxVar(handlerKey{}, "handler")
				handlerValue = r.Context().Value(handlerKey{})
				r.Response.Write("ok")
			})
		})
	})
	assert.Equal(t, http.StatusOK, get(t, url+"/ctx/1").StatusCode)
	assert.NotEqual(t, nethttp.ContextName, before, "no entry yet")
	assert.Equal(t, nethttp.ContextName, inHandler)
	assert.Equal(t, "handler", handlerValue)
	assert.Equal(t, before, after)
	assert.Nil(t, afterValue)
}

type handlerKey struct{}
