package transport_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	// The runtime's cached clock ticks for the whole process.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"))
}

// start runs a command center on a free loopback port for the test.
func start(t testing.TB, cfg transport.Config) *transport.Server {
	t.Helper()
	if cfg.App == "" {
		cfg.App = "transport-test"
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	srv, err := transport.Start(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	return srv
}

// get calls a command as the dashboard's SentinelApiClient does for reads:
// GET with the parameters in the query string.
func get(t *testing.T, srv *transport.Server, command string, params url.Values) (int, string) {
	t.Helper()
	u := "http://" + srv.Addr().String() + "/" + command
	if len(params) > 0 {
		u += "?" + params.Encode()
	}
	resp, err := http.Get(u)
	require.NoError(t, err)
	return readResponse(t, resp)
}

// post calls a command as the dashboard does for rule updates: POST with a
// form body (Apache's UrlEncodedFormEntity, UTF-8).
func post(t *testing.T, srv *transport.Server, command string, params url.Values) (int, string) {
	t.Helper()
	return postRaw(t, srv, command, "application/x-www-form-urlencoded; charset=UTF-8", params.Encode())
}

func postRaw(t *testing.T, srv *transport.Server, command, contentType, body string) (int, string) {
	t.Helper()
	resp, err := http.Post("http://"+srv.Addr().String()+"/"+command, contentType, strings.NewReader(body))
	require.NoError(t, err)
	return readResponse(t, resp)
}

func readResponse(t *testing.T, resp *http.Response) (int, string) {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
