package nethttp_test

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// hangUps sends n requests to url that the client abandons once the
// handler has them (arrived), then waits until the route's entry is out.
func hangUps(t *testing.T, client *http.Client, url, route string, arrived <-chan struct{}, n int) {
	t.Helper()
	for i := range n {
		ctx, cancel := context.WithCancel(t.Context())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		require.NoError(t, err)
		done := make(chan int, 1)
		go func() {
			resp, err := client.Do(req)
			if err != nil {
				done <- 0
				return
			}
			_, _ = io.ReadAll(resp.Body) // a streamed response: until the hang-up
			_ = resp.Body.Close()
			done <- resp.StatusCode
		}()
		select {
		case <-arrived:
		case code := <-done:
			cancel()
			t.Fatalf("request %d was answered %d without reaching the handler", i, code)
		}
		cancel()
		<-done
		require.Eventually(t, func() bool { return cluster(t, route).Threads() == 0 },
			10*time.Second, time.Millisecond, "the route's entry exits after the hang-up")
	}
}

// An attacker's clients that hang up used to open the route's error-count
// breaker for everyone: the handler answers 502 once its request's context
// ends, and that answer was counted as the route's error. Nothing a handler
// does after its caller is gone is the route's error.
func TestClientsThatHangUpDoNotOpenTheRoutesBreaker(t *testing.T) {
	noLeaks(t)
	clk := clocktest.Install(t)
	rec := record(t)
	arrived := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /abort/upstream/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "healthy" {
			_, _ = io.WriteString(w, "ok")
			return
		}
		arrived <- struct{}{}
		<-r.Context().Done()
		w.WriteHeader(http.StatusBadGateway) // "my upstream call was canceled"
	})
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: "/abort/upstream/{id}",
		Grade: degrade.ErrorCount, Count: 2, TimeWindow: 60, MinRequestAmount: 1}}))
	t.Cleanup(func() { _ = degrade.LoadRules(nil) })
	srv, client, _ := startServer(t, mux)

	hangUps(t, client, srv.URL+"/abort/upstream/1", "/abort/upstream/{id}", arrived, 5)

	assert.NoError(t, rec.lastExit().Err)
	assert.Zero(t, cluster(t, "/abort/upstream/{id}").ExceptionQPS(clk.Millis()))
	resp, body := get(t, client, srv.URL+"/abort/upstream/healthy")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the breaker stays closed for the next client")
	assert.Equal(t, "ok", body)
}

// Behind httputil.ReverseProxy, clients that hang up mid-stream make the
// proxy panic with http.ErrAbortHandler, which used to be recorded as the
// route's error and opened its breaker.
func TestHangUpsBehindAReverseProxyDoNotOpenTheRoutesBreaker(t *testing.T) {
	noLeaks(t)
	clk := clocktest.Install(t)
	rec := record(t)
	arrived := make(chan struct{}, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/proxy/healthy" {
			_, _ = io.WriteString(w, "ok")
			return
		}
		_, _ = io.WriteString(w, "part")
		w.(http.Flusher).Flush()
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	t.Cleanup(upstream.Close)
	target, err := url.Parse(upstream.URL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	mux := http.NewServeMux()
	mux.Handle("/proxy/", proxy)
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: "/proxy/",
		Grade: degrade.ErrorCount, Count: 2, TimeWindow: 60, MinRequestAmount: 1}}))
	t.Cleanup(func() { _ = degrade.LoadRules(nil) })
	srv, client, _ := startServer(t, mux)

	hangUps(t, client, srv.URL+"/proxy/stream", "/proxy/", arrived, 5)

	assert.NoError(t, rec.lastExit().Err)
	assert.Zero(t, cluster(t, "/proxy/").ExceptionQPS(clk.Millis()))
	resp, body := get(t, client, srv.URL+"/proxy/healthy")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the breaker stays closed for the next client")
	assert.Equal(t, "ok", body)
}

// A handler that aborts its response with http.ErrAbortHandler while its
// client still listens is not the route's error either: net/http does not
// count it as a failure, and a proxy raises it whenever either side of its
// copy ends (its upstream's failure is the Transport's to record).
func TestErrAbortHandlerIsNotTheRoutesError(t *testing.T) {
	clk := clocktest.Install(t)
	rec := record(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/abort/direct", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })
	mw := nethttp.Middleware()(mux)

	assert.PanicsWithValue(t, http.ErrAbortHandler, func() {
		mw.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/abort/direct", nil))
	}, "the panic goes on to the server")

	assert.NoError(t, rec.lastExit().Err)
	cl := cluster(t, "/abort/direct")
	assert.Zero(t, cl.ExceptionQPS(clk.Millis()))
	assert.Zero(t, cl.Threads())
}

// A 5xx or a panic once the request's context has ended is not recorded,
// while the same answers to a live request are, and the call's response
// time is counted either way (slow-call breakers see it).
func TestErrorsAfterTheRequestsContextEndedAreNotRecorded(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"a 5xx", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }},
		{"a panic", func(http.ResponseWriter, *http.Request) { panic("boom") }},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktest.Install(t)
			rec := record(t)
			name := "/abort/after/" + string(rune('a'+i))
			mux := http.NewServeMux()
			mux.HandleFunc(name, func(w http.ResponseWriter, r *http.Request) {
				clk.Advance(30 * time.Millisecond)
				tt.handler(w, r)
			})
			mw := nethttp.Middleware()(mux)
			serveOnce := func(ctx context.Context) {
				defer func() { _ = recover() }()
				mw.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, "GET", name, nil))
			}

			serveOnce(t.Context())
			assert.Error(t, rec.lastExit().Err, "a live request's failure is the route's")

			ended, cancel := context.WithCancel(t.Context())
			cancel()
			serveOnce(ended)
			assert.NoError(t, rec.lastExit().Err, "after the hang-up it is not")
			cl := cluster(t, name)
			now := clk.Millis()
			assert.Equal(t, 1.0, cl.ExceptionQPS(now))
			assert.Equal(t, 2.0, cl.SuccessQPS(now), "both calls completed")
			assert.InDelta(t, 30.0, cl.AvgRT(now), 0.01, "the response time is counted for both")
		})
	}
}
