package nethttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// roundTripFunc is a fake base transport.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// respond is a base transport that answers every request with status and
// body.
func respond(status int, body string) roundTripFunc {
	return func(r *http.Request) (*http.Response, error) {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return &http.Response{StatusCode: status, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
}

// trackedBody records whether it was closed.
type trackedBody struct {
	io.Reader
	closed atomic.Bool
}

func (b *trackedBody) Close() error { b.closed.Store(true); return nil }

func TestTransportNamesResourcesMethodSchemeHostPath(t *testing.T) {
	tests := []struct {
		name   string
		method string
		url    string
		opts   []nethttp.TransportOption
		want   string // "" = not protected
	}{
		{name: "query is dropped", method: "GET", url: "http://pay.example.com/tr/orders?id=1",
			want: "GET:http://pay.example.com/tr/orders"},
		{name: "port is kept", method: "POST", url: "http://pay.example.com:8080/tr/pay",
			want: "POST:http://pay.example.com:8080/tr/pay"},
		{name: "https", method: "DELETE", url: "https://pay.example.com/tr/o/1",
			want: "DELETE:https://pay.example.com/tr/o/1"},
		{name: "empty path is /", method: "GET", url: "http://tr-root.example.com",
			want: "GET:http://tr-root.example.com/"},
		{name: "empty method is GET", method: "", url: "http://pay.example.com/tr/empty",
			want: "GET:http://pay.example.com/tr/empty"},
		{name: "escaped path stays escaped", method: "GET", url: "http://pay.example.com/tr/a%2Fb",
			want: "GET:http://pay.example.com/tr/a%2Fb"},
		{name: "the cleaner rewrites the URL part", method: "GET", url: "http://pay.example.com/tr/orders/42",
			opts: []nethttp.TransportOption{nethttp.WithURLCleaner(func(_ *http.Request, u string) string {
				return u[:strings.LastIndexByte(u, '/')] + "/{id}"
			})},
			want: "GET:http://pay.example.com/tr/orders/{id}"},
		{name: "a cleaner returning empty skips protection", method: "GET", url: "http://pay.example.com/tr/skip",
			opts: []nethttp.TransportOption{nethttp.WithURLCleaner(func(*http.Request, string) string { return "" })}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := record(t)
			called := false
			base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				called = true
				return respond(200, "")(r)
			})
			req, err := http.NewRequest(tt.method, tt.url, nil)
			require.NoError(t, err)
			resp, err := nethttp.Transport(base, tt.opts...).RoundTrip(req)
			require.NoError(t, err)
			_ = resp.Body.Close()

			assert.True(t, called)
			if tt.want == "" {
				assert.Empty(t, rec.names())
				return
			}
			assert.Equal(t, []string{tt.want}, rec.names())
			c := rec.last()
			assert.Equal(t, runtime.Outbound, c.Traffic)
			assert.Equal(t, runtime.Web, c.Type)
			assert.Equal(t, runtime.DefaultContextName, c.Context)
			assert.Zero(t, cluster(t, tt.want).Threads())
		})
	}
}

func TestTransportRecordsErrorsAndErrorStatuses(t *testing.T) {
	refused := errors.New("connection refused")
	tests := []struct {
		name     string
		base     roundTripFunc
		opts     []nethttp.TransportOption
		wantErr  error // the recorded error, matched with errors.Is; nil: none
		wantCode int   // a recorded *StatusError's code
	}{
		{name: "transport error", base: func(*http.Request) (*http.Response, error) { return nil, refused }, wantErr: refused},
		{name: "500", base: respond(500, "oops"), wantCode: 500},
		{name: "503", base: respond(503, "busy"), wantCode: 503},
		{name: "200 is fine", base: respond(200, "ok")},
		{name: "404 is fine", base: respond(404, "no")},
		{name: "custom predicate: 404 is an error", base: respond(404, "no"), wantCode: 404,
			opts: []nethttp.TransportOption{nethttp.WithErrorStatus(func(c int) bool { return c == 404 })}},
		{name: "nil predicate: 500 is fine", base: respond(500, "oops"),
			opts: []nethttp.TransportOption{nethttp.WithErrorStatus(nil)}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktest.Install(t)
			rec := record(t)
			u := "http://errors.example.com/tr/" + string(rune('a'+i))
			client := &http.Client{Transport: nethttp.Transport(tt.base, tt.opts...)}

			resp, err := client.Get(u)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
				_, _ = io.ReadAll(resp.Body)
				_ = resp.Body.Close()
			}

			now := clk.Millis()
			cl := cluster(t, "GET:"+u)
			assert.Zero(t, cl.Threads())
			switch {
			case tt.wantErr != nil:
				assert.Equal(t, 1.0, cl.ExceptionQPS(now))
				assert.ErrorIs(t, rec.lastExit().Err, tt.wantErr)
			case tt.wantCode != 0:
				assert.Equal(t, 1.0, cl.ExceptionQPS(now))
				var se *nethttp.StatusError
				require.ErrorAs(t, rec.lastExit().Err, &se)
				assert.Equal(t, tt.wantCode, se.Code)
			default:
				assert.Zero(t, cl.ExceptionQPS(now))
			}
		})
	}
}

func TestBlockedTransportReturnsTheBlockErrorThroughHTTPClient(t *testing.T) {
	const u = "http://blocked.example.com/tr/blocked"
	record(t).blocking("POST:" + u)
	called := false
	base := roundTripFunc(func(*http.Request) (*http.Response, error) { called = true; return nil, errors.New("sent") })
	client := &http.Client{Transport: nethttp.Transport(base)}
	reqBody := &trackedBody{Reader: strings.NewReader("payload")}
	req, err := http.NewRequest("POST", u, reqBody)
	require.NoError(t, err)

	resp, err := client.Do(req)

	assert.Nil(t, resp)
	require.Error(t, err)
	assert.False(t, called, "the request is not sent")
	var ue *url.Error
	require.ErrorAs(t, err, &ue, "http.Client wraps RoundTrip errors")
	assert.ErrorIs(t, err, runtime.ErrBlocked)
	var b *runtime.BlockError
	require.ErrorAs(t, err, &b)
	assert.Equal(t, "POST:"+u, b.Resource())
	assert.True(t, reqBody.closed.Load(), "a RoundTripper closes the request body, even when it does not send it")
	assert.Zero(t, cluster(t, "POST:"+u).Threads())
}

func TestTransportFallbackAnswersBlockedRequests(t *testing.T) {
	const u = "http://fallback.example.com/tr/fallback"
	record(t).blocking("POST:" + u)
	var gotBlock *runtime.BlockError
	fallback := nethttp.WithFallback(func(r *http.Request, b *runtime.BlockError) (*http.Response, error) {
		gotBlock = b
		return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("cached")), Request: r}, nil
	})
	base := roundTripFunc(func(*http.Request) (*http.Response, error) { t.Error("base called"); return nil, errors.New("x") })
	client := &http.Client{Transport: nethttp.Transport(base, fallback)}
	reqBody := &trackedBody{Reader: strings.NewReader("payload")}
	req, err := http.NewRequest("POST", u, reqBody)
	require.NoError(t, err)

	resp, err := client.Do(req)

	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, "cached", string(body))
	require.NotNil(t, gotBlock)
	assert.Equal(t, "POST:"+u, gotBlock.Resource())
	assert.True(t, reqBody.closed.Load())
}

func TestTransportEntryLastsUntilTheBodyIsDone(t *testing.T) {
	tests := []struct {
		name    string
		finish  func(io.ReadCloser)
		wantErr bool
	}{
		{name: "Close exits", finish: func(b io.ReadCloser) { _ = b.Close() }},
		{name: "reading to EOF exits without Close", finish: func(b io.ReadCloser) { _, _ = io.ReadAll(b) }},
		{name: "EOF then Close exits once", finish: func(b io.ReadCloser) { _, _ = io.ReadAll(b); _ = b.Close() }},
		{name: "Close before EOF exits once", finish: func(b io.ReadCloser) {
			_, _ = b.Read(make([]byte, 2))
			_ = b.Close()
			_, _ = io.ReadAll(b)
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktest.Install(t)
			record(t)
			u := "http://body.example.com/tr/body/" + string(rune('a'+i))
			resp, err := nethttp.Transport(respond(200, "0123456789")).RoundTrip(httptest.NewRequest("GET", u, nil))
			require.NoError(t, err)
			cl := cluster(t, "GET:"+u)
			assert.Equal(t, int64(1), cl.Threads(), "the entry stays open while the body is")

			clk.Advance(30 * time.Millisecond)
			tt.finish(resp.Body)

			now := clk.Millis()
			assert.Zero(t, cl.Threads())
			assert.Equal(t, 1.0, cl.SuccessQPS(now), "exited exactly once")
			assert.Equal(t, 30.0, cl.AvgRT(now), "response time runs to the end of the body")
			assert.Zero(t, cl.ExceptionQPS(now))
		})
	}
}

// failingReader returns some bytes and then an error.
type failingReader struct{ sent bool }

var errReset = errors.New("connection reset")

func (r *failingReader) Read(p []byte) (int, error) {
	if !r.sent {
		r.sent = true
		return copy(p, "par"), nil
	}
	return 0, errReset
}

func TestTransportBodyReadErrorIsRecorded(t *testing.T) {
	clk := clocktest.Install(t)
	rec := record(t)
	const u = "http://body.example.com/tr/readerror"
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: io.NopCloser(&failingReader{}), Request: r}, nil
	})
	resp, err := nethttp.Transport(base).RoundTrip(httptest.NewRequest("GET", u, nil))
	require.NoError(t, err)
	_, err = io.ReadAll(resp.Body)
	require.ErrorIs(t, err, errReset)
	_ = resp.Body.Close()

	cl := cluster(t, "GET:"+u)
	assert.Zero(t, cl.Threads())
	assert.Equal(t, 1.0, cl.ExceptionQPS(clk.Millis()))
	assert.ErrorIs(t, rec.lastExit().Err, errReset)
}

func TestTransportWithoutABodyExitsAtOnce(t *testing.T) {
	record(t)
	const u = "http://body.example.com/tr/nobody"
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: r}, nil
	})
	resp, err := nethttp.Transport(base).RoundTrip(httptest.NewRequest("HEAD", u, nil))
	require.NoError(t, err)
	assert.Equal(t, http.NoBody, resp.Body)
	assert.Zero(t, cluster(t, "HEAD:"+u).Threads())
}

func TestTransportBodyNeverClosedIsExitedWhenCollected(t *testing.T) {
	record(t)
	const u = "http://body.example.com/tr/leaked"
	func() {
		resp, err := nethttp.Transport(respond(200, "data")).RoundTrip(httptest.NewRequest("GET", u, nil))
		require.NoError(t, err)
		require.NotNil(t, resp.Body) // dropped without Read or Close
	}()
	cl := cluster(t, "GET:"+u)
	require.Eventually(t, func() bool {
		goruntime.GC()
		return cl.Threads() == 0
	}, 10*time.Second, 10*time.Millisecond)
}

func TestTransportPanicInBaseIsRecordedAndGoesOn(t *testing.T) {
	clk := clocktest.Install(t)
	record(t)
	const u = "http://panic.example.com/tr/panic"
	base := roundTripFunc(func(*http.Request) (*http.Response, error) { panic("transport bug") })
	assert.PanicsWithValue(t, "transport bug", func() {
		_, _ = nethttp.Transport(base).RoundTrip(httptest.NewRequest("GET", u, nil))
	})
	cl := cluster(t, "GET:"+u)
	assert.Zero(t, cl.Threads())
	assert.Equal(t, 1.0, cl.ExceptionQPS(clk.Millis()))
}

func TestTransportArgsAreComputedOnlyForResourcesThatReadThem(t *testing.T) {
	const hot, cold = "http://args.example.com/tr/hot", "http://args.example.com/tr/cold"
	rec := record(t).wantingArgs("GET:" + hot)
	// Enter both once so the runtime knows them (a first call passes args).
	tr := nethttp.Transport(respond(200, ""), nethttp.WithArgs(func(r *http.Request) []any {
		return []any{r.Header.Get("X-User")}
	}))
	for _, u := range []string{hot, cold, hot, cold} {
		req := httptest.NewRequest("GET", u, nil)
		req.Header.Set("X-User", "vip")
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Len(t, rec.calls, 4)
	assert.Equal(t, []any{"vip"}, rec.calls[2].Args)
	assert.Nil(t, rec.calls[3].Args, "a resource no rule reads args of gets none")
}

type idleCloser struct {
	roundTripFunc
	closed bool
}

func (c *idleCloser) CloseIdleConnections() { c.closed = true }

func TestTransportForwardsCloseIdleConnections(t *testing.T) {
	base := &idleCloser{roundTripFunc: respond(200, "")}
	client := &http.Client{Transport: nethttp.Transport(base)}
	client.CloseIdleConnections()
	assert.True(t, base.closed)
}

func TestTransportOnARealListenerNestsUnderTheInboundRequest(t *testing.T) {
	noLeaks(t)
	clk := clocktest.Install(t)
	record(t)

	downstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/tr/pay/fail" {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		_, _ = io.WriteString(w, "paid")
	}))
	out := &http.Client{Transport: nethttp.Transport(downstream.Client().Transport)}
	t.Cleanup(func() {
		out.CloseIdleConnections()
		downstream.Close()
	})

	mux := http.NewServeMux()
	mux.HandleFunc("POST /tr/checkout/{kind}", func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), "POST", downstream.URL+"/tr/pay/"+r.PathValue("kind"), nil)
		resp, err := out.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	})
	srv, client, _ := startServer(t, mux)

	resp, err := client.Post(srv.URL+"/tr/checkout/ok", "text/plain", nil)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, "paid", string(body))
	resp, err = client.Post(srv.URL+"/tr/checkout/fail", "text/plain", nil)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)

	okRes, failRes := "POST:"+downstream.URL+"/tr/pay/ok", "POST:"+downstream.URL+"/tr/pay/fail"
	now := clk.Millis()
	assert.Equal(t, 1.0, cluster(t, okRes).SuccessQPS(now))
	assert.Zero(t, cluster(t, okRes).Threads())
	assert.Equal(t, 1.0, cluster(t, failRes).ExceptionQPS(now))
	assert.Equal(t, 1.0, cluster(t, "/tr/checkout/{kind}").ExceptionQPS(now), "the 502 passed on counts inbound too")

	entrance := findChild(runtime.Tree(), nethttp.ContextName)
	require.NotNil(t, entrance)
	route := findChild(*entrance, "/tr/checkout/{kind}")
	require.NotNil(t, route)
	assert.NotNil(t, findChild(*route, okRes), "the outbound call is a child of the inbound request")
	assert.NotNil(t, findChild(*route, failRes))
}

// A base transport that panics once the caller gave up is no failure of
// the upstream's (the caller-abort rule); the panic goes on, the entry
// exits.
func TestTransportPanicAfterTheCallerGaveUpIsNotRecorded(t *testing.T) {
	clk := clocktest.Install(t)
	record(t)
	const u = "http://panic.example.com/tr/canceled"
	base := roundTripFunc(func(*http.Request) (*http.Response, error) { panic("canceled") })
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.PanicsWithValue(t, "canceled", func() {
		_, _ = nethttp.Transport(base).RoundTrip(httptest.NewRequest("GET", u, nil).WithContext(ctx))
	})
	cl := cluster(t, "GET:"+u)
	assert.Zero(t, cl.Threads())
	assert.Zero(t, cl.ExceptionQPS(clk.Millis()), "the caller hung up")
}
