package transport_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// The dashboard's switch is Java's Constants.ON: off, every call passes
// and nothing is counted; on again, the rules apply.
func TestSwitchCommands(t *testing.T) {
	clk := clocktest.Install(t)
	t.Cleanup(func() { runtime.SetEnabled(true) })
	res := "switch.order"
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: res, Grade: flow.GradeQPS, Count: 0}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	srv := start(t, transport.Config{})

	_, body := get(t, srv, "getSwitch", nil)
	assert.Equal(t, "Sentinel switch value: true", body)

	code, body := get(t, srv, "setSwitch", url.Values{"value": {"false"}})
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, "Sentinel set switch value: false", body)
	assert.False(t, runtime.Enabled())
	_, body = get(t, srv, "getSwitch", nil)
	assert.Equal(t, "Sentinel switch value: false", body)
	for range 3 {
		e, b := runtime.Entry(context.Background(), res)
		require.Nil(t, b, "off: a count-0 rule admits")
		e.Exit()
	}
	assert.EqualValues(t, 0, runtime.LookupResource(res).ClusterNode().PassQPS(clk.Millis()), "off: nothing counted")

	for _, bad := range []string{"", "maybe", "%FF"} {
		code, body := get(t, srv, "setSwitch?value="+bad, nil)
		assert.Equal(t, http.StatusBadRequest, code, bad)
		assert.NotEmpty(t, body)
		assert.False(t, runtime.Enabled(), "a bad value changes nothing")
	}

	code, body = post(t, srv, "setSwitch", url.Values{"value": {"TRUE"}})
	require.Equal(t, http.StatusOK, code, body)
	assert.True(t, runtime.Enabled())
	_, b := runtime.Entry(context.Background(), res)
	assert.NotNil(t, b, "on again: the rule blocks")
}
