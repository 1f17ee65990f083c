package transport_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// An attacker's page the operator visits fires requests at the command
// center on loopback (an <img> tag, a fetch after DNS rebinding). The
// browser marks them; they change nothing.
func TestCommandsFromWebPagesAreRefused(t *testing.T) {
	t.Cleanup(func() { runtime.SetEnabled(true) })
	srv := start(t, transport.Config{})
	for name, h := range map[string]map[string]string{
		"cross-site image":    {"Sec-Fetch-Site": "cross-site"},
		"same-site":           {"Sec-Fetch-Site": "same-site"},
		"rebound same-origin": {"Sec-Fetch-Site": "same-origin"},
		"cross-origin fetch":  {"Origin": "https://evil.example"},
	} {
		req, err := http.NewRequest("GET", "http://"+srv.Addr().String()+"/setSwitch?value=false", nil)
		require.NoError(t, err)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, "%s: %s", name, body)
		assert.True(t, runtime.Enabled(), name)
	}
}

// A context that has already ended starts nothing, and never crashes.
func TestStartWithAnEndedContext(t *testing.T) {
	for range 50 {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		srv, err := transport.Start(ctx, transport.Config{App: "x", Addr: "127.0.0.1:0"})
		require.ErrorIs(t, err, context.Canceled)
		require.Nil(t, srv)
	}
}
