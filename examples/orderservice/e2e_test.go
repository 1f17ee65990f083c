package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testApp is the service started for real on a loopback port, with the
// runtime on a hand-stepped clock: HTTP, rule files and the payment
// provider are real, Sentinel's time is the test's.
type testApp struct {
	*app
	t      *testing.T
	clock  *clocktest.Clock
	rules  string
	client *http.Client
}

func startTestApp(t *testing.T) *testApp {
	t.Helper()
	c := clocktest.New()
	t.Cleanup(runtime.SetClock(c))
	dir := t.TempDir()
	require.NoError(t, writeDefaultRules(dir))
	a, err := start(context.Background(), config{
		addr: "127.0.0.1:0", rulesDir: dir, createDelay: 300 * time.Millisecond, pollEvery: 100 * time.Millisecond,
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, a.Close()) })
	return &testApp{app: a, t: t, clock: c, rules: dir, client: testClient(t)}
}

// testClient is an HTTP client with a transport of its own, whose idle
// connections it closes when the test ends, before the app closes (call it
// after start): concurrent requests can leave a connection dialed and never
// used, and the server's Shutdown gives such a connection 5 s to send a
// request, as long as the app's Close waits.
func testClient(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}
}

// nextSecond moves the runtime's clock to the start of a second whose
// window holds nothing yet.
func (a *testApp) nextSecond() {
	now := a.clock.Millis()
	a.clock.Advance(time.Duration(2000-now%1000) * time.Millisecond)
}

func (a *testApp) call(method, path, body string) (int, string) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.URL()+path, strings.NewReader(body))
	require.NoError(a.t, err)
	resp, err := a.client.Do(req)
	require.NoError(a.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(a.t, err)
	return resp.StatusCode, string(b)
}

// statuses counts the answers of n sequential calls.
func (a *testApp) statuses(n int, method, path string) map[int]int {
	out := map[int]int{}
	for range n {
		code, _ := a.call(method, path, "")
		out[code]++
	}
	return out
}

func TestURLResourceAdmitsItsThresholdAndAnswers429Beyond(t *testing.T) {
	a := startTestApp(t)
	a.nextSecond()
	degraded := 0
	codes := map[int]int{}
	for range 30 {
		code, body := a.call(http.MethodGet, "/api/order?id=1", "")
		codes[code]++
		if code == http.StatusOK && strings.Contains(body, `"degraded":true`) {
			degraded++
		}
	}
	assert.Equal(t, map[int]int{200: 20, 429: 10}, codes, "/api/order admits 20 a second")
	assert.Equal(t, 5, degraded, "getOrder's own 15-a-second rule sends 5 of the 20 to its block handler")

	a.nextSecond()
	assert.Equal(t, map[int]int{200: 20, 429: 5}, a.statuses(25, http.MethodGet, "/api/order?id=1"), "a new second, a new allowance")
}

func TestBreakerOpensWhenTheProviderFailsAndRecoversAfterItsWindow(t *testing.T) {
	a := startTestApp(t)
	a.nextSecond()
	pay := func() string {
		code, body := a.call(http.MethodPost, "/api/order/2/pay", "")
		require.Equal(t, http.StatusOK, code, body)
		var o Order
		require.NoError(t, json.Unmarshal([]byte(body), &o))
		return o.Status
	}
	assert.Equal(t, "paid", pay())

	a.provider.SetFailing(true)
	a.nextSecond()
	for range 5 {
		assert.Equal(t, "payment-pending", pay(), "the fallback answers a failed charge")
	}
	charges := a.provider.Charges()
	for range 5 {
		assert.Equal(t, "payment-pending", pay(), "the open breaker answers with the fallback")
	}
	assert.Equal(t, charges, a.provider.Charges(), "an open breaker stops calling the provider")

	a.provider.SetFailing(false)
	a.clock.Advance(1 * time.Second)
	assert.Equal(t, "payment-pending", pay(), "still open within its 2 s window")
	a.clock.Advance(1500 * time.Millisecond)
	assert.Equal(t, "paid", pay(), "after the window a probe passes and closes the breaker")
	assert.Equal(t, "paid", pay())
}

func TestHotParameterRuleLimitsEachUserAndLetsTheVIPThrough(t *testing.T) {
	a := startTestApp(t)
	a.nextSecond()
	assert.Equal(t, map[int]int{200: 5, 429: 5}, a.statuses(10, http.MethodGet, "/api/orders?user=alice"))
	assert.Equal(t, map[int]int{200: 5, 429: 5}, a.statuses(10, http.MethodGet, "/api/orders?user=bob"), "each user apart")
	assert.Equal(t, map[int]int{200: 30}, a.statuses(30, http.MethodGet, "/api/orders?user=vip"), "vip's item allows 100")
}

func TestThreadRuleLimitsConcurrentCreations(t *testing.T) {
	a := startTestApp(t)
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			code, _ := a.call(http.MethodPost, "/api/orders", fmt.Sprintf(`{"user":"u%d","item":"pen","amount":1}`, i))
			mu.Lock()
			codes[code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	assert.Equal(t, map[int]int{200: 2, 429: 4}, codes, "two creations at once, as the thread rule says")
	assert.EqualValues(t, 0, runtime.LookupResource("createOrder").ClusterNode().Threads())
}

func TestRuleEditsApplyWhileRunningAndABadFileKeepsTheLimits(t *testing.T) {
	a := startTestApp(t)
	flowFile := filepath.Join(a.rules, "flow.json")
	src := a.sources["flow.json"]

	require.NoError(t, editLimit(flowFile, "/api/order", 20, 5))
	require.Eventually(t, func() bool { return src.Status().Loads >= 2 }, 2*time.Second, 20*time.Millisecond,
		"the edit is picked up within two seconds")
	a.nextSecond()
	assert.Equal(t, map[int]int{200: 5, 429: 5}, a.statuses(10, http.MethodGet, "/api/order?id=1"))

	require.NoError(t, os.WriteFile(flowFile, []byte(`[{"resource": "/api/order", "count": `), 0o644))
	require.Eventually(t, func() bool { return src.LastError() != nil }, 2*time.Second, 20*time.Millisecond)
	a.nextSecond()
	assert.Equal(t, map[int]int{200: 5, 429: 5}, a.statuses(10, http.MethodGet, "/api/order?id=1"),
		"a malformed file leaves the previous limits in force")
}

func TestDemoRuns(t *testing.T) {
	var out strings.Builder
	require.NoError(t, runDemo(context.Background(), &out, 3*time.Second))
	assert.Contains(t, out.String(), "/api/order")
	assert.Contains(t, out.String(), "answered 200")
	assert.Contains(t, out.String(), "answered RESOURCE_EXHAUSTED", "gRPC calls refused beside the HTTP table")
	assert.Contains(t, out.String(), grpcGetOrder)
	header := strings.Index(out.String(), " sec  resource")
	loaded := strings.Index(out.String(), "-- loaded at start: flow.json (4 rules), degrade.json (1 rule)")
	require.GreaterOrEqual(t, header, 0)
	assert.Greater(t, loaded, header, "the first load is told under the table's header:\n%s", out.String())
	assert.NotContains(t, out.String(), " 1 rules")
	assert.Regexp(t, `(?m)^live page: http://127\.0\.0\.1:\d+/sentinel/ `, out.String(), "the demo says where its page is")
}

// The breaker column tells the states of the second the figures are for.
func TestDemoBreakerColumnTellsTheSecondsStates(t *testing.T) {
	b := newBreakerStates()
	b.observe(degrade.StateChange{Resource: "pay", From: degrade.Closed, To: degrade.Open, Millis: 2_300})
	b.observe(degrade.StateChange{Resource: "pay", From: degrade.Open, To: degrade.HalfOpen, Millis: 4_100})
	b.observe(degrade.StateChange{Resource: "pay", From: degrade.HalfOpen, To: degrade.Closed, Millis: 4_102})
	assert.Equal(t, "CLOSED", b.during("pay", 1_000, 2_000), "closed all through, though it is closed again only later")
	assert.Equal(t, "CLOSED → OPEN", b.during("pay", 2_000, 3_000))
	assert.Equal(t, "OPEN", b.during("pay", 3_000, 4_000))
	assert.Equal(t, "OPEN → HALF_OPEN → CLOSED", b.during("pay", 4_000, 5_000))
	assert.Equal(t, "CLOSED", b.during("pay", 5_000, 6_000))
	assert.Equal(t, "", b.during("list", 5_000, 6_000), "no breaker")
}
