package sentinelfiber_test

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	sentinelfiber "github.com/sentinelgen/sentinelgen/adapters/fiber"
	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	m.Run()
}

func order(c *fiber.Ctx) error {
	code, body := webtest.Order(c.UserContext(), c.Params("id"))
	return c.Status(code).SendString(body)
}

func other(c *fiber.Ctx) error { return c.SendString("other") }

// app is the suite's two routes on fiber, the order route in a group,
// behind the adapter registered with app.Use.
func app(opts ...sentinelfiber.Option) *fiber.App {
	a := fiber.New(fiber.Config{DisableStartupMessage: true})
	a.Use(recover.New(), sentinelfiber.Middleware(opts...))
	api := a.Group("/api")
	api.Get("/order/:id", order)
	a.Get("/api/other", other)
	return a
}

// serve serves a on a 127.0.0.1 port until the test ends.
func serve(t *testing.T, a *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- a.Listener(ln) }()
	t.Cleanup(func() {
		require.NoError(t, a.Shutdown())
		require.NoError(t, <-served)
	})
	return "http://" + ln.Addr().String()
}

func TestFiberAppUse(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		return webtest.Server{URL: serve(t, app()), Resource: "/api/order/:id", Other: "/api/other"}
	})
}

// Registered on each route, the adapter reads the route from c.Route().
func TestFiberPerRoute(t *testing.T) {
	webtest.Run(t, func(t *testing.T) webtest.Server {
		a := fiber.New(fiber.Config{DisableStartupMessage: true})
		a.Use(recover.New())
		a.Get("/api/order/:id", sentinelfiber.Middleware(), order)
		a.Get("/api/other", sentinelfiber.Middleware(), other)
		return webtest.Server{URL: serve(t, a), Resource: "/api/order/:id", Other: "/api/other"}
	})
}

func get(t *testing.T, a *fiber.App, method, target string) int {
	t.Helper()
	resp, err := a.Test(httptest.NewRequest(method, target, nil), -1)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// From app.Use the adapter finds the route fiber will serve: the first
// matching route after it, by fiber's rules, routes added later included.
func TestAppUseFindsTheRouteFiberServes(t *testing.T) {
	clocktest.Install(t)
	a := app()
	a.Get("/fiber/files/*", other)
	a.Get("/fiber/opt/:id?", other)
	a.Get("/fiber/first/:a", other)
	a.Get("/fiber/first/fixed", other) // never reached: the route before it serves
	a.Post("/fiber/post", other)
	for _, tt := range []struct{ method, target, want string }{
		{http.MethodGet, "/fiber/files/a/b", "/fiber/files/*"},
		{http.MethodGet, "/fiber/opt", "/fiber/opt/:id?"},
		{http.MethodGet, "/FIBER/OPT/7/", "/fiber/opt/:id?"},
		{http.MethodGet, "/fiber/first/fixed", "/fiber/first/:a"},
		{http.MethodPost, "/fiber/post", "/fiber/post"},
	} {
		assert.Equal(t, http.StatusOK, get(t, a, tt.method, tt.target), "%s %s", tt.method, tt.target)
		assert.NotNil(t, runtime.LookupResource(tt.want), "%s %s is %s", tt.method, tt.target, tt.want)
	}
	assert.Nil(t, runtime.LookupResource("/fiber/first/fixed"))

	assert.Equal(t, http.StatusNotFound, get(t, a, http.MethodGet, "/fiber/nowhere"))
	assert.Nil(t, runtime.LookupResource("/fiber/nowhere"), "unmatched requests are not protected by default")
	assert.Equal(t, http.StatusMethodNotAllowed, get(t, a, http.MethodGet, "/fiber/post"))

	u := app(sentinelfiber.WithUnmatchedPath())
	assert.Equal(t, http.StatusNotFound, get(t, u, http.MethodGet, "/fiber/unmatched"))
	assert.NotNil(t, runtime.LookupResource("/fiber/unmatched"), "WithUnmatchedPath protects it under its path")
}

func TestOriginFromHeaderAndMethodPrefix(t *testing.T) {
	clocktest.Install(t)
	a := app(sentinelfiber.WithMethodPrefix(), sentinelfiber.WithOriginParser(sentinelfiber.OriginFromHeader("S-user")))
	req := httptest.NewRequest(http.MethodGet, "/api/other", nil)
	req.Header.Set("S-user", "frontend")
	resp, err := a.Test(req, -1)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	res := runtime.LookupResource("GET:/api/other")
	require.NotNil(t, res)
	assert.Contains(t, res.ClusterNode().Origins(), "frontend")
}

// From app.Use, the adapter's lookup of the route under 50 routes with
// parameter constraints parsed every route and compiled its constraints
// again on each request: 2,453 allocations and milliseconds for a path
// no route matches. Now it is fiber's routing, run once more: it
// allocates what fiber's routing does (a failed <int> constraint's
// strconv error, the 404's message) once more, and a few besides.
func TestAppUseUnderConstrainedRoutesCostsAboutFibersRouting(t *testing.T) {
	allocs := func(h fasthttp.RequestHandler, target string) float64 {
		ctx := &fasthttp.RequestCtx{}
		ctx.Request.Header.SetMethod(fiber.MethodGet)
		ctx.Request.SetRequestURI(target)
		return testing.AllocsPerRun(100, func() { h(ctx) })
	}
	bare, adapter := constrainedApp(), constrainedApp(sentinelfiber.Middleware())
	for _, target := range []string{"/api/v24/orders/not-an-order", "/api/v0/items/x", "/nowhere"} {
		assert.LessOrEqual(t, allocs(adapter, target), 2*allocs(bare, target)+4, target)
	}
}

// A block handler that writes after the default answer adds to its body,
// as after net/http's: the default answer's body is the response's own.
func TestWritingAfterTheDefaultAnswerAppends(t *testing.T) {
	clocktest.Install(t)
	webtest.Refuse(t, "/api/other")
	a := app(sentinelfiber.WithBlockHandler(func(c *fiber.Ctx, b *runtime.BlockError) error {
		if err := sentinelfiber.DefaultBlockHandler(c, b); err != nil {
			return err
		}
		_, err := c.WriteString("try again later\n")
		return err
	}))
	for range 2 {
		resp, err := a.Test(httptest.NewRequest(http.MethodGet, "/api/other", nil), -1)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		assert.Equal(t, web.BlockMessage+"\ntry again later\n", string(body))
	}
}
