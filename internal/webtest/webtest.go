// Package webtest is the conformance suite every web framework adapter
// (adapters/...) runs against its real framework serving on 127.0.0.1, so
// that each shows the semantics runtime/nethttp has with one set of tests:
// a flow rule on the route pattern, an error-count breaker that opens on
// 5xx answers and on panics, clients' hang-ups that are not errors, and a
// generated wrapper (package orders) nesting under the route.
//
// An adapter's test starts its framework with two routes, in its own
// syntax, the protection middleware and the framework's usual panic
// recovery in front of it:
//
//	GET /api/order/<id>  answers what Order says for <id>, called with the
//	                     context the framework's handlers pass on
//	GET /api/other       answers 200 "other"
//
// and calls Run with the server's URL and the resource names it expects.
package webtest

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/webtest/orders"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Server is an adapter's framework serving the two routes.
type Server struct {
	URL      string // "http://127.0.0.1:port"
	Resource string // the order route's resource: its pattern, "/api/order/:id"
	Other    string // the other route's resource, "/api/other"
	// HangUpsEndContext says whether a handler's context ends when its
	// client hangs up: net/http's does; fasthttp (fiber) never tells a
	// handler, which then finishes as if the client were there.
	HangUpsEndContext bool
}

// The ids whose answers Order varies.
const (
	FailID  = "fail"  // 500
	PanicID = "panic" // the handler panics
	HangID  = "hang"  // waits for the client to hang up, then 502
)

var hang struct {
	sync.Mutex
	arrived chan struct{} // told when a HangID request reaches its handler
	release chan struct{} // closed to end a HangID request whose context cannot end
}

// Order is the order route's behaviour for id, with ctx the context the
// framework's handler passes on (which carries the route's entry): the
// answer's status and body. It calls the generated wrapper orders.Lookup
// with ctx, and panics for PanicID.
func Order(ctx context.Context, id string) (int, string) {
	switch id {
	case FailID:
		return http.StatusInternalServerError, "failed"
	case PanicID:
		panic("webtest: handler panicked")
	case HangID:
		hang.Lock()
		arrived, release := hang.arrived, hang.release
		hang.Unlock()
		arrived <- struct{}{}
		select {
		case <-ctx.Done():
			return http.StatusBadGateway, "my upstream call was canceled"
		case <-release:
			return http.StatusOK, "late"
		}
	}
	order, err := orders.Lookup(ctx, id)
	if err != nil {
		return http.StatusServiceUnavailable, err.Error()
	}
	return http.StatusOK, order
}

// Run runs the suite against the server start returns; start is called
// once per test and the server it starts must stop when the test ends.
func Run(t *testing.T, start func(t *testing.T) Server) {
	t.Run("a flow rule on the pattern refuses the third of five requests", func(t *testing.T) {
		clocktest.Install(t)
		s := start(t)
		loadFlow(t, flow.Rule{Resource: s.Resource, Grade: flow.GradeQPS, Count: 2})
		for i, want := range []int{200, 200, 429, 429, 429} {
			resp, body := get(t, s.URL+"/api/order/"+string(rune('1'+i)))
			require.Equal(t, want, resp.StatusCode, "request %d: %s", i, body)
			if want == 429 {
				assert.Equal(t, "1", resp.Header.Get("Retry-After"))
				assert.Contains(t, body, nethttp.BlockMessage)
			}
		}
		for range 5 {
			resp, body := get(t, s.URL+"/api/other")
			require.Equal(t, 200, resp.StatusCode, "other routes are unaffected")
			assert.Equal(t, "other", body)
		}
	})

	for _, id := range []string{FailID, PanicID} {
		t.Run("an error-count breaker opens on "+id, func(t *testing.T) {
			clk := clocktest.Install(t)
			s := start(t)
			loadBreaker(t, s.Resource)
			// A fresh connection each: http.Client sends a GET again when a
			// reused connection breaks, as a panic may break it.
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			for i := range 3 {
				resp, err := client.Get(s.URL + "/api/order/" + id)
				if err == nil { // a panic may cost the connection instead of a 500
					_ = resp.Body.Close()
					assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, "request %d", i)
				}
			}
			waitIdle(t, s.Resource)
			assert.Equal(t, 3.0, cluster(t, s.Resource).ExceptionQPS(clk.Millis()))
			resp, _ := get(t, s.URL+"/api/order/1")
			assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "the breaker is open")
			resp, _ = get(t, s.URL+"/api/other")
			assert.Equal(t, http.StatusOK, resp.StatusCode, "other routes are unaffected")
		})
	}

	t.Run("a client's hang-up is not an error", func(t *testing.T) {
		clk := clocktest.Install(t)
		s := start(t)
		loadBreaker(t, s.Resource)
		hang.Lock()
		hang.arrived, hang.release = make(chan struct{}, 1), make(chan struct{})
		release := hang.release
		hang.Unlock()
		for i := range 5 {
			ctx, cancel := context.WithCancel(t.Context())
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/order/"+HangID, nil)
			require.NoError(t, err)
			done := make(chan int, 1)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					done <- 0
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				done <- resp.StatusCode
			}()
			select {
			case <-hang.arrived:
			case code := <-done:
				cancel()
				t.Fatalf("request %d answered %d before reaching the handler", i, code)
			}
			cancel()
			assert.Zero(t, <-done, "the client hung up")
			if !s.HangUpsEndContext && i == 4 {
				close(release) // the handlers finish as if the clients were there
			}
		}
		waitIdle(t, s.Resource)
		assert.Zero(t, cluster(t, s.Resource).ExceptionQPS(clk.Millis()))
		resp, body := get(t, s.URL+"/api/order/1")
		assert.Equal(t, http.StatusOK, resp.StatusCode, "the breaker stays closed: %s", body)
	})

	t.Run("a generated wrapper called with the request's context nests under the route", func(t *testing.T) {
		clocktest.Install(t)
		s := start(t)
		resp, body := get(t, s.URL+"/api/order/7")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "order 7", body)
		entrance := child(runtime.Tree(), nethttp.ContextName)
		require.NotNil(t, entrance, "the web context's entrance")
		route := child(*entrance, s.Resource)
		require.NotNil(t, route, "the route under the entrance")
		assert.NotNil(t, child(*route, orders.LookupResource), "the wrapper's resource under the route's")
		waitIdle(t, s.Resource)
	})
}

func loadFlow(t *testing.T, rules ...flow.Rule) {
	t.Helper()
	require.NoError(t, flow.LoadRules(rules))
	t.Cleanup(func() { require.NoError(t, flow.LoadRules(nil)) })
}

// loadBreaker opens resource's breaker after more than two errors in a
// minute.
func loadBreaker(t *testing.T, resource string) {
	t.Helper()
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: resource, Grade: degrade.ErrorCount,
		Count: 2, MinRequestAmount: 1, TimeWindow: 60, StatIntervalMs: 60000}}))
	t.Cleanup(func() { require.NoError(t, degrade.LoadRules(nil)) })
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func cluster(t *testing.T, name string) *runtime.ClusterNode {
	t.Helper()
	r := runtime.LookupResource(name)
	require.NotNil(t, r, "resource %q exists", name)
	return r.ClusterNode()
}

// waitIdle waits until no call of resource is in flight: a server's
// handler may return after its client has the answer.
func waitIdle(t *testing.T, resource string) {
	t.Helper()
	require.Eventually(t, func() bool { return cluster(t, resource).Threads() == 0 },
		10*time.Second, time.Millisecond, "%s has calls in flight", resource)
}

func child(n runtime.TreeNode, name string) *runtime.TreeNode {
	for i := range n.Children {
		if n.Children[i].Name == name {
			return &n.Children[i]
		}
	}
	return nil
}

// AssertNestsUnder checks that resource's node sits under parent's, where
// parent is a resource entered directly under some context's entrance: an
// RPC adapter's call, with a generated wrapper called from its handler.
func AssertNestsUnder(t *testing.T, parent, resource string) {
	t.Helper()
	var node *runtime.TreeNode
	for _, entrance := range runtime.Tree().Children {
		if n := child(entrance, parent); n != nil {
			node = n
		}
	}
	require.NotNil(t, node, "%s's node under an entrance", parent)
	assert.NotNil(t, child(*node, resource), "%s under %s", resource, parent)
}
