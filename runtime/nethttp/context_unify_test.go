package nethttp_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Spring's web-context-unify=false (AbstractSentinelInterceptor's
// getContextName returns the resource name): a chain flow rule whose
// refResource names a route limits what that route calls, and only that.
// FlowRuleChecker.selectReferenceNode picks the node only when the
// context's name equals refResource.
func TestWebContextUnifyFalseLetsChainRulesNameARoute(t *testing.T) {
	clk := clocktest.Install(t)
	require.NoError(t, flow.LoadRules([]flow.Rule{{
		Resource: "unify-inventory", Grade: flow.GradeQPS, Count: 1,
		Strategy: flow.Chain, RefResource: "/unify/order",
	}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })

	// Both routes call the same protected resource.
	inventory := func(w http.ResponseWriter, r *http.Request) {
		e, b := runtime.Entry(r.Context(), "unify-inventory")
		if b != nil {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		e.Exit()
	}
	codes := func(h http.Handler, path string, n int) []int {
		var out []int
		for range n {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
			out = append(out, w.Code)
		}
		return out
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/unify/order", inventory)
	mux.HandleFunc("/unify/stock", inventory)

	separate := nethttp.Middleware(nethttp.WithWebContextUnify(false))(mux)
	assert.Equal(t, []int{200, 429, 429}, codes(separate, "/unify/order", 3), "the chain rule limits calls made under /unify/order")
	assert.Equal(t, []int{200, 200, 200}, codes(separate, "/unify/stock", 3), "and not those made under another route")

	clk.Advance(2 * time.Second)
	unified := nethttp.Middleware()(mux)
	assert.Equal(t, []int{200, 200, 200}, codes(unified, "/unify/order", 3),
		"in the shared web context the chain rule never applies, as in Spring by default")

	var name string
	mux.HandleFunc("/unify/name", func(_ http.ResponseWriter, r *http.Request) {
		name, _ = runtime.ContextName(r.Context())
	})
	codes(nethttp.Middleware(nethttp.WithWebContextUnify(false), nethttp.WithMethodPrefix())(mux), "/unify/name", 1)
	assert.Equal(t, "GET:/unify/name", name, "the context is named after the resource")
	codes(unified, "/unify/name", 1)
	assert.Equal(t, nethttp.ContextName, name)
}
