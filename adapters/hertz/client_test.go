package sentinelhertz_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/cloudwego/hertz/pkg/app/client"
	"github.com/cloudwego/hertz/pkg/protocol"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sentinelhertz "github.com/sentinelgen/sentinelgen/adapters/hertz"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

func newClient(t *testing.T, opts ...sentinelhertz.ClientOption) *client.Client {
	t.Helper()
	c, err := client.NewClient()
	require.NoError(t, err)
	c.Use(sentinelhertz.ClientMiddleware(opts...))
	return c
}

func TestAClientCallRefusedDoesNotReachTheServer(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, false)
	c := newClient(t)
	resource := "GET:" + url + "/api/other"
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: resource, Grade: flow.GradeQPS, Count: 1}}))
	t.Cleanup(func() { require.NoError(t, flow.LoadRules(nil)) })

	before := otherCalls.Load()
	code, body, err := c.Get(t.Context(), nil, url+"/api/other")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "other", string(body))

	_, _, err = c.Get(t.Context(), nil, url+"/api/other")
	require.Error(t, err)
	assert.True(t, errors.Is(err, runtime.ErrBlocked), "the BlockError: %v", err)
	var b *runtime.BlockError
	require.ErrorAs(t, err, &b)
	assert.Equal(t, runtime.BlockFlow, b.BlockType())
	assert.Equal(t, before+1, otherCalls.Load(), "the refused call never reached the server")
}

func TestAClientFallbackAnswersARefusal(t *testing.T) {
	clocktest.Install(t)
	url := serve(t, false)
	c := newClient(t, sentinelhertz.WithClientFallback(func(_ context.Context, _ *protocol.Request, resp *protocol.Response, _ *runtime.BlockError) error {
		resp.SetStatusCode(http.StatusOK)
		resp.SetBodyString("cached")
		return nil
	}))
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "GET:" + url + "/api/other", Grade: flow.GradeQPS, Count: 0}}))
	t.Cleanup(func() { require.NoError(t, flow.LoadRules(nil)) })
	code, body, err := c.Get(t.Context(), nil, url+"/api/other")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "cached", string(body))
}

func TestServerErrorsOpenTheClientsBreaker(t *testing.T) {
	clk := clocktest.Install(t)
	url := serve(t, false)
	c := newClient(t)
	resource := "GET:" + url + "/api/fail"
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: resource, Grade: degrade.ErrorCount,
		Count: 2, MinRequestAmount: 1, TimeWindow: 60, StatIntervalMs: 60000}}))
	t.Cleanup(func() { require.NoError(t, degrade.LoadRules(nil)) })
	for range 3 {
		code, _, err := c.Get(t.Context(), nil, url+"/api/fail")
		require.NoError(t, err)
		assert.Equal(t, http.StatusBadGateway, code)
	}
	assert.Equal(t, 3.0, runtime.LookupResource(resource).ClusterNode().ExceptionQPS(clk.Millis()))
	_, _, err := c.Get(t.Context(), nil, url+"/api/fail")
	var b *runtime.BlockError
	require.ErrorAs(t, err, &b)
	assert.Equal(t, runtime.BlockDegrade, b.BlockType())
}

func TestACallTheCallerCanceledIsNotAnError(t *testing.T) {
	clk := clocktest.Install(t)
	url := serve(t, false)
	c := newClient(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, err := c.Get(ctx, nil, url+"/api/fail")
	_ = err // whether hertz sends it after a cancel is its own business
	res := runtime.LookupResource("GET:" + url + "/api/fail")
	require.NotNil(t, res)
	assert.Zero(t, res.ClusterNode().ExceptionQPS(clk.Millis()))
}
