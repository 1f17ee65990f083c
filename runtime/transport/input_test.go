package transport_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// Hostile or broken requests get a clear status and message, before any
// command runs.
func TestBadRequests(t *testing.T) {
	srv := start(t, transport.Config{})
	base := "http://" + srv.Addr().String()
	many := strings.Repeat("a=1&", 10) + func() string {
		var b strings.Builder
		for i := range 100 {
			b.WriteString("p")
			b.WriteString(strings.Repeat("x", i%7+1))
			b.WriteString(string(rune('a' + i%26)))
			b.WriteString(strings.Repeat("y", i/26))
			b.WriteString("=1&")
		}
		return b.String()
	}()
	tests := []struct {
		name, method, path string
		code               int
		message            string
	}{
		{"unknown command", "GET", "/nope", 400, "Unknown command `nope`"},
		{"no command", "GET", "/", 400, "Invalid command"},
		{"non-UTF-8 command", "GET", "/%FF%FE", 400, `Unknown command ` + "`" + `"\xff\xfe"` + "`"},
		{"bad escape", "GET", "/getRules?type=%zz", 400, "malformed URL encoding"},
		{"non-UTF-8 value", "GET", "/getRules?type=%C3%28", 400, "not valid UTF-8"},
		{"too many parameters", "GET", "/version?" + many, 400, "more than 64 parameters"},
		{"method", "PUT", "/version", 405, "Only GET and POST"},
		{"unknown rule type", "GET", "/getRules?type=gateway", 400, "invalid type"},
		{"no rule type", "GET", "/getRules", 400, "invalid type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, base+tt.path, nil)
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			code, body := readResponse(t, resp)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, body, tt.message)
		})
	}
}

// A command that fails is the dashboard's CommandFailedException; an
// unknown one is its CommandNotFoundException, which it recognises by 400
// and "Unknown command" in the body.
func TestUnknownCommandIsWhatTheDashboardRecognises(t *testing.T) {
	srv := start(t, transport.Config{})
	code, body := get(t, srv, "gateway/getApiDefinitions", nil)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, "Unknown command")
}

// A request line or headers over 64 KiB are refused by the server before
// any command runs.
func TestHugeRequestLineIsRefused(t *testing.T) {
	srv := start(t, transport.Config{})
	code, _ := get(t, srv, "setRules?type=flow&data="+strings.Repeat("x", 100<<10), nil)
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, code)
}

// Bodies being read are bounded: past MaxConcurrent, a POST is answered
// 503 at once instead of queueing, and the other commands still answer
// (see TestTrickledBodiesHoldNoCommandSlot).
func TestBodiesInFlightAreBounded(t *testing.T) {
	srv := start(t, transport.Config{MaxConcurrent: 1})
	conn := trickle(t, srv)
	require.Eventually(t, func() bool {
		code, _ := post(t, srv, "setSwitch", url.Values{"value": {"true"}})
		return code == http.StatusServiceUnavailable
	}, 5*time.Second, 5*time.Millisecond)
	require.NoError(t, conn.Close())
	require.Eventually(t, func() bool {
		code, _ := post(t, srv, "getSwitch", nil)
		return code == http.StatusOK
	}, 5*time.Second, 5*time.Millisecond, "the place is given back")
}
