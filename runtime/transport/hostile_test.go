package transport_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// trickle opens a connection that sends a POST's header and the start of
// its body, then stalls, as a slow or hostile client does.
func trickle(t *testing.T, srv *transport.Server) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	_, err = conn.Write([]byte("POST /setRules HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ntype=flow&"))
	require.NoError(t, err)
	return conn
}

// rawGet sends a GET with the given Host header and returns the status.
func rawGet(t *testing.T, srv *transport.Server, host, target string) int {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, host)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// A DNS-rebound page (evil.example made to resolve to 127.0.0.1) sent
// GET /setSwitch?value=false with its own Host and no Fetch-Metadata
// headers, and switched Sentinel off. Only the names the command center
// is reached by are answered.
func TestForeignHostIsRefused(t *testing.T) {
	t.Cleanup(func() { runtime.SetEnabled(true) })
	srv := start(t, transport.Config{AllowedHosts: []string{"sentinel.internal"}})
	port := srv.Addr().(*net.TCPAddr).Port
	for _, host := range []string{"evil.example", fmt.Sprintf("evil.example:%d", port), "127.0.0.1.evil.example", "localhost.evil.example", ""} {
		assert.Equal(t, http.StatusForbidden, rawGet(t, srv, host, "/setSwitch?value=false"), "Host %q", host)
		assert.True(t, runtime.Enabled(), "Host %q switched Sentinel off", host)
	}
	// What curl, the dashboard (ip:port) and an operator send.
	for _, host := range []string{fmt.Sprintf("127.0.0.1:%d", port), "localhost", "LOCALHOST:1", "app.localhost", "[::1]:8719", "127.0.0.2", "sentinel.internal:8719", "Sentinel.Internal."} {
		assert.Equal(t, http.StatusOK, rawGet(t, srv, host, "/getSwitch"), "Host %q", host)
	}
}

// The configured address and ClientIP, the address the dashboard is told
// to call, are allowed by default.
func TestConfiguredAddressesAreAllowed(t *testing.T) {
	srv := start(t, transport.Config{Addr: "127.0.0.1:0", ClientIP: "10.1.2.3"})
	assert.Equal(t, http.StatusOK, rawGet(t, srv, "10.1.2.3:8719", "/version"))
	assert.Equal(t, http.StatusForbidden, rawGet(t, srv, "10.1.2.4:8719", "/version"))
}

// Sixteen connections that sent a POST header and trickled the body held
// every command slot: /version waited 10 s. Bodies are read before a
// command takes its slot, and apart.
func TestTrickledBodiesHoldNoCommandSlot(t *testing.T) {
	srv := start(t, transport.Config{MaxConcurrent: 2})
	for range 64 {
		trickle(t, srv)
	}
	require.Eventually(t, func() bool { // the trickled bodies are being read
		code, _ := post(t, srv, "getSwitch", nil)
		return code == http.StatusServiceUnavailable
	}, 5*time.Second, 5*time.Millisecond)
	for range 40 {
		start := time.Now()
		code, body := get(t, srv, "version", nil)
		require.Equal(t, http.StatusOK, code, body)
		require.Less(t, time.Since(start), 2*time.Second, "a command waits for no body")
	}
}

// The heartbeat client followed a dashboard's 307 and posted the app's
// identity wherever it pointed. A redirect is a failed heartbeat.
func TestHeartbeatDoesNotFollowRedirects(t *testing.T) {
	var stolen atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
		_, _ = io.WriteString(w, `{"success":true}`)
	}))
	defer elsewhere.Close()
	var beats atomic.Int64
	dash := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		beats.Add(1)
		http.Redirect(w, r, elsewhere.URL+"/collect", http.StatusTemporaryRedirect)
	}))
	defer dash.Close()

	// With the default client and with one the caller gives, whose own
	// policy would follow.
	for _, client := range []*http.Client{nil, {Timeout: time.Second}} {
		before := beats.Load()
		start(t, transport.Config{Dashboard: dash.Listener.Addr().String(), HeartbeatInterval: 10 * time.Millisecond, HTTPClient: client})
		require.Eventually(t, func() bool { return beats.Load() >= before+3 }, 5*time.Second, 5*time.Millisecond)
	}
	assert.Zero(t, stolen.Load(), "the form went where the redirect pointed")
}

// A body longer than MaxBodyBytes, by its Content-Length, is refused
// before any of it is read.
func TestDeclaredOversizedBodyIsRefusedUnread(t *testing.T) {
	srv := start(t, transport.Config{MaxBodyBytes: 1 << 10})
	conn, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("POST /setRules HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000000\r\n\r\n"))
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
}

// flowRulesJSON is n flow rules, one a resource, with count, as dry runs
// or as Java's dashboard sends them (without dryRun).
func flowRulesJSON(n, count int, dryRun bool) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"resource":"/api/r%d","count":%d`, i, count)
		if dryRun {
			b.WriteString(`,"dryRun":true`)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.String()
}

// Java's dashboard pushes every rule of a kind after an edit. Matching
// each with the rule in force it stands for compared every pair: 3,000
// edited rules over 3,000 in force took seconds, and on a loaded machine
// the dashboard's connection dropped. Now the push answers in about the
// time a first push does, and the rules keep their dry runs.
func TestAFullDashboardPushAnswersAsAFirstPushDoes(t *testing.T) {
	t.Cleanup(func() { clearRulesTB(t) })
	srv := start(t, transport.Config{})
	const n = 3000
	inForce, edited := flowRulesJSON(n, 5, true), flowRulesJSON(n, 6, false)
	push := func(before string) time.Duration {
		code, body := post(t, srv, "setRules", url.Values{"type": {"flow"}, "data": {before}})
		require.Equal(t, http.StatusOK, code, body)
		start := time.Now()
		code, body = post(t, srv, "setRules", url.Values{"type": {"flow"}, "data": {edited}})
		require.Equal(t, http.StatusOK, code, body)
		return time.Since(start)
	}
	first, over := time.Duration(1<<63-1), time.Duration(1<<63-1)
	for range 3 {
		first = min(first, push("[]"))
		over = min(over, push(inForce))
	}
	assert.Less(t, over, 5*first+200*time.Millisecond, "a push over %d rules in force took %v, into none %v", n, over, first)
	_, rules := getRules(t, srv, "flow")
	assert.Equal(t, n, strings.Count(rules, `"dryRun":true`), "each edited rule is still a dry run")
}
