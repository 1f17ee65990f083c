package transport_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/runtime/transport"
)

// registry is a fake sentinel-dashboard: its /registry/machine validates a
// heartbeat as MachineRegistryController.receiveHeartBeat does and answers
// its Result JSON.
type registry struct {
	srv        *httptest.Server
	heartbeats chan map[string]string
	fail       atomic.Bool // answer 500
	calls      atomic.Int64
}

func newRegistry(t *testing.T) *registry {
	t.Helper()
	r := &registry{heartbeats: make(chan map[string]string, 100)}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *registry) hostPort() string { return strings.TrimPrefix(r.srv.URL, "http://") }

func (r *registry) serve(w http.ResponseWriter, req *http.Request) {
	r.calls.Add(1)
	if req.URL.Path != "/registry/machine" {
		http.NotFound(w, req)
		return
	}
	if r.fail.Load() {
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	if err := req.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	msg := map[string]string{}
	for k := range req.PostForm {
		msg[k] = req.PostForm.Get(k)
	}
	result := func(ok bool, m string) {
		_ = json.NewEncoder(w).Encode(map[string]any{"success": ok, "code": map[bool]int{true: 0, false: -1}[ok], "msg": m})
	}
	app, ip, hostname := msg["app"], msg["ip"], msg["hostname"]
	if strings.TrimSpace(app) == "" || len(app) > 256 {
		result(false, "invalid appName")
		return
	}
	if strings.TrimSpace(ip) == "" || len(ip) > 128 || net.ParseIP(ip) == nil {
		result(false, "invalid ip: "+ip)
		return
	}
	port, err := strconv.Atoi(msg["port"])
	if err != nil || port < -1 {
		result(false, "invalid port")
		return
	}
	if len(hostname) > 256 {
		result(false, "hostname too long")
		return
	}
	if port == -1 {
		result(false, "your port not set yet")
		return
	}
	if v := msg["app_type"]; v != "" {
		if _, err := strconv.Atoi(v); err != nil {
			http.Error(w, "app_type", http.StatusBadRequest)
			return
		}
	}
	if v := msg["version"]; v != "" {
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			http.Error(w, "version", http.StatusBadRequest)
			return
		}
	}
	select {
	case r.heartbeats <- msg:
	default:
	}
	result(true, "success")
}

func (r *registry) next(t *testing.T) map[string]string {
	t.Helper()
	select {
	case m := <-r.heartbeats:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no heartbeat")
		return nil
	}
}

// versionAtLeast is the dashboard's VersionUtils.parseVersion and
// SentinelVersion.greaterOrEqual: x.y.z before an optional -postfix.
func versionAtLeast(t *testing.T, v string, want [3]int) bool {
	t.Helper()
	base, _, _ := strings.Cut(v, "-")
	parts := strings.Split(base, ".")
	require.Len(t, parts, 3, "version %q", v)
	var got [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		require.NoError(t, err, "version %q", v)
		got[i] = n
	}
	full := func(x [3]int) int { return x[0]*1_000_000 + x[1]*1000 + x[2] }
	return full(got) >= full(want)
}

func TestHeartbeatsRegisterWithEveryDashboard(t *testing.T) {
	a, b := newRegistry(t), newRegistry(t)
	srv := start(t, transport.Config{
		App:               "orders.heartbeat",
		Dashboard:         a.hostPort() + ", http://" + b.hostPort(),
		HeartbeatInterval: 20 * time.Millisecond,
		Hostname:          "order-host-1",
	})
	port := srv.Addr().(*net.TCPAddr).Port
	for _, r := range []*registry{a, b} {
		first := r.next(t)
		assert.Equal(t, "orders.heartbeat", first["app"])
		assert.Equal(t, "0", first["app_type"])
		assert.Equal(t, "order-host-1", first["hostname"])
		assert.Equal(t, "127.0.0.1", first["ip"], "the listen address is the address the dashboard calls back")
		assert.Equal(t, strconv.Itoa(port), first["port"])
		assert.Equal(t, transport.Version, first["v"])
		assert.True(t, versionAtLeast(t, first["v"], [3]int{1, 7, 1}),
			"the dashboard sends rules by POST (1.6.0) with a charset in the content type (1.7.1)")
		v1, err := strconv.ParseInt(first["version"], 10, 64)
		require.NoError(t, err)
		second := r.next(t)
		v2, _ := strconv.ParseInt(second["version"], 10, 64)
		assert.GreaterOrEqual(t, v2, v1, "version is the sending time in ms")
	}
}

func TestHeartbeatOutageIsLoggedOncePerOutage(t *testing.T) {
	lb := logtest.Capture(t)
	r := newRegistry(t)
	r.fail.Store(true)
	// A heartbeat gives up when the next is due: at 5 ms apart, one that
	// timed out on a loaded machine once success was back was a new outage.
	start(t, transport.Config{Dashboard: r.hostPort(), HeartbeatInterval: 100 * time.Millisecond})
	require.Eventually(t, func() bool { return r.calls.Load() >= 5 }, 10*time.Second, time.Millisecond)
	assert.Equal(t, 1, lb.Count("dashboard heartbeat failed"), "one line for the whole outage")

	r.fail.Store(false)
	r.next(t)
	require.Eventually(t, func() bool { return lb.Count("dashboard heartbeat succeeds again") == 1 }, 10*time.Second, time.Millisecond)

	r.fail.Store(true)
	n := r.calls.Load()
	require.Eventually(t, func() bool { return r.calls.Load() >= n+5 }, 10*time.Second, time.Millisecond)
	assert.Equal(t, 2, lb.Count("dashboard heartbeat failed"), "a new outage, a new line")
}

// The dashboard answers 200 with success false when it refuses a machine;
// that is a failed heartbeat, logged with the dashboard's reason.
func TestRefusedHeartbeatIsAFailure(t *testing.T) {
	lb := logtest.Capture(t)
	var mu sync.Mutex
	var calls int
	dash := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		_, _ = w.Write([]byte(`{"success":false,"code":-1,"msg":"invalid ip: x"}`))
	}))
	defer dash.Close()
	// The first heartbeat goes at once and gives up when the next is due:
	// a minute, where 5 ms timed out on a loaded machine, and the outage
	// was logged with that error instead.
	start(t, transport.Config{Dashboard: dash.URL, HeartbeatInterval: time.Minute})
	require.Eventually(t, func() bool { return lb.Count("invalid ip: x") == 1 }, 10*time.Second, time.Millisecond)
}

// A dashboard that never answers delays nothing: Close returns at once.
func TestHeartbeatsNeverBlockClose(t *testing.T) {
	hang := make(chan struct{})
	hanging := make(chan struct{}, 1)
	dash := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case hanging <- struct{}{}:
		default:
		}
		<-hang
	}))
	defer dash.Close()
	defer close(hang)
	srv, err := transport.Start(t.Context(), transport.Config{App: "hang", Addr: "127.0.0.1:0", Dashboard: dash.URL})
	require.NoError(t, err)
	select {
	case <-hanging: // the first heartbeat hangs
	case <-time.After(10 * time.Second):
		t.Fatal("no heartbeat reached the dashboard")
	}
	done := make(chan error, 1)
	go func() { done <- srv.Close() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for a hanging dashboard")
	}
}

// One dashboard that hangs delays no other; an https dashboard is called
// over TLS with the configured client.
func TestASlowDashboardDelaysNoOther(t *testing.T) {
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	defer slow.Close()
	defer close(hang)
	got := make(chan struct{}, 100)
	tlsDash := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- struct{}{}:
		default:
		}
	}))
	defer tlsDash.Close()
	start(t, transport.Config{
		Dashboard:         slow.Listener.Addr().String() + "," + tlsDash.URL,
		HeartbeatInterval: 10 * time.Millisecond,
		HTTPClient:        tlsDash.Client(),
	})
	for range 3 {
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("the https dashboard got no heartbeat while the other hangs")
		}
	}
}
