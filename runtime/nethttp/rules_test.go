package nethttp_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// With the real rule packages: a flow rule on the route's pattern, and a
// circuit breaker fed by the transport's 5xx responses.

func TestFlowRuleOnTheRoutePatternAnswers429BeyondItsThreshold(t *testing.T) {
	clk := clocktest.Install(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "/rules/order/{id}", Grade: flow.GradeQPS, Count: 2}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	mux := http.NewServeMux()
	mux.Handle("GET /rules/order/{id}", ok)
	h := nethttp.Middleware()(mux)

	codes := func(n int) []int {
		var out []int
		for i := range n {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", "/rules/order/"+string(rune('0'+i)), nil))
			out = append(out, w.Code)
		}
		return out
	}
	assert.Equal(t, []int{200, 200, 429, 429}, codes(4), "every order ID counts against the one pattern")
	now := clk.Millis()
	cl := cluster(t, "/rules/order/{id}")
	assert.Equal(t, 2.0, cl.PassQPS(now))
	assert.Equal(t, 2.0, cl.BlockQPS(now))

	clk.Advance(time.Second)
	assert.Equal(t, []int{200, 200, 429}, codes(3), "a new second admits again")
}

func TestBreakerOpensOnDownstream5xxAndTheFallbackAnswers(t *testing.T) {
	clk := clocktest.Install(t)
	const u = "http://down.example.com/rules/pay"
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{
		Resource: "POST:" + u, Grade: degrade.ErrorCount, Count: 1, TimeWindow: 1, MinRequestAmount: 2,
	}}))
	t.Cleanup(func() { _ = degrade.LoadRules(nil) })

	failing := true
	sent := 0
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent++
		if failing {
			return respond(http.StatusServiceUnavailable, "down")(r)
		}
		return respond(http.StatusOK, "paid")(r)
	})
	var blocked []*runtime.BlockError
	client := &http.Client{Transport: nethttp.Transport(base, nethttp.WithFallback(
		func(r *http.Request, b *runtime.BlockError) (*http.Response, error) {
			blocked = append(blocked, b)
			return &http.Response{StatusCode: http.StatusAccepted, Body: io.NopCloser(http.NoBody), Request: r}, nil
		}))}
	pay := func() int {
		resp, err := client.Post(u, "text/plain", nil)
		require.NoError(t, err)
		_, _ = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode
	}

	assert.Equal(t, []int{503, 503}, []int{pay(), pay()})
	assert.Equal(t, http.StatusAccepted, pay(), "two errors > count 1: the breaker is open, the fallback answers")
	assert.Equal(t, 2, sent)
	require.Len(t, blocked, 1)
	assert.Equal(t, runtime.BlockDegrade, blocked[0].BlockType())

	clk.Advance(time.Second)
	failing = false
	assert.Equal(t, http.StatusOK, pay(), "after timeWindow a probe goes through and closes the breaker")
	assert.Equal(t, http.StatusOK, pay())
	assert.Equal(t, 4, sent)
}

func TestBreakerOpensOnHandlerPanicsAndErrorStatuses(t *testing.T) {
	clocktest.Install(t)
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{
		Resource: "/rules/flaky", Grade: degrade.ErrorCount, Count: 1, TimeWindow: 1, MinRequestAmount: 2,
	}}))
	t.Cleanup(func() { _ = degrade.LoadRules(nil) })
	calls := 0
	mux := http.NewServeMux()
	mux.HandleFunc("/rules/flaky", func(w http.ResponseWriter, _ *http.Request) {
		calls++
		if calls == 1 {
			panic(errors.New("flaky"))
		}
		w.WriteHeader(http.StatusInternalServerError)
	})
	h := nethttp.Middleware()(mux)
	serveOne := func() int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/rules/flaky", nil))
		return w.Code
	}

	assert.Panics(t, func() { serveOne() })
	assert.Equal(t, 500, serveOne())
	assert.Equal(t, 429, serveOne(), "a panic and a 500 opened the breaker")
	assert.Equal(t, 2, calls)
}
