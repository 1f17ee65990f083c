package nethttp_test

import (
	"bufio"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// startServer serves Middleware(opts...)(mux) on a real listener. The
// returned channel receives each request's path once the middleware has
// returned (a hijacked connection can answer the client before that).
func startServer(t *testing.T, mux *http.ServeMux, opts ...nethttp.Option) (*httptest.Server, *http.Client, <-chan string) {
	t.Helper()
	mw := nethttp.Middleware(opts...)(mux)
	served := make(chan string, 64)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { served <- r.URL.Path }()
		mw.ServeHTTP(w, r)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // handler panics are expected
	srv.Start()
	client := srv.Client()
	t.Cleanup(func() {
		client.CloseIdleConnections()
		srv.Close()
	})
	return srv, client, served
}

func get(t *testing.T, c *http.Client, url string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func TestMiddlewareOnARealListener(t *testing.T) {
	noLeaks(t)
	clk := clocktest.Install(t)
	record(t).blocking("/srv/blocked")

	mux := http.NewServeMux()
	mux.HandleFunc("GET /srv/order/{id}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "order "+r.PathValue("id")) // the mux still sets path values
	})
	mux.HandleFunc("/srv/blocked", func(http.ResponseWriter, *http.Request) { t.Error("blocked handler called") })
	mux.HandleFunc("/srv/fail", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	mux.HandleFunc("/srv/panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
	mux.HandleFunc("/srv/abort", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	srv, client, _ := startServer(t, mux, nethttp.WithOriginParser(nethttp.OriginFromHeader("S-user")))

	resp, body := get(t, client, srv.URL+"/srv/order/42")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "order 42", body)

	resp, body = get(t, client, srv.URL+"/srv/blocked")
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, nethttp.BlockMessage+"\n", body)

	resp, _ = get(t, client, srv.URL+"/srv/fail")
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)

	// POST: http.Client retries a GET whose reused connection breaks.
	_, err := client.Post(srv.URL+"/srv/panic", "text/plain", nil)
	require.Error(t, err, "the server aborts the connection of a panicking handler")
	r, err := client.Post(srv.URL+"/srv/abort", "text/plain", nil)
	if err == nil { // the headers were flushed: the body read fails
		_, err = io.ReadAll(r.Body)
		_ = r.Body.Close()
	}
	require.Error(t, err)

	now := clk.Millis()
	assert.Equal(t, 1.0, cluster(t, "/srv/order/{id}").SuccessQPS(now))
	assert.Equal(t, 1.0, cluster(t, "/srv/blocked").BlockQPS(now))
	assert.Equal(t, 1.0, cluster(t, "/srv/fail").ExceptionQPS(now))
	assert.Equal(t, 1.0, cluster(t, "/srv/panic").ExceptionQPS(now))
	assert.Zero(t, cluster(t, "/srv/abort").ExceptionQPS(now), "an aborted response is not the route's error")
	for _, n := range []string{"/srv/order/{id}", "/srv/fail", "/srv/panic", "/srv/abort"} {
		assert.Zero(t, cluster(t, n).Threads(), n)
	}
}

func TestResponseWriterKeepsItsOptionalInterfacesOnARealListener(t *testing.T) {
	noLeaks(t)
	record(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/srv/stream", func(w http.ResponseWriter, _ *http.Request) {
		rc := http.NewResponseController(w)
		if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Errorf("ResponseController through the wrapper: %v", err)
		}
		_, _ = io.WriteString(w, "a")
		if err := rc.Flush(); err != nil {
			t.Errorf("Flush: %v", err)
		}
		w.(http.Flusher).Flush()
		if _, isRF := w.(io.ReaderFrom); !isRF {
			t.Error("io.ReaderFrom lost")
		}
		_, _ = io.WriteString(w, "b")
	})
	mux.HandleFunc("/srv/hijack", func(w http.ResponseWriter, _ *http.Request) {
		conn, brw, err := w.(http.Hijacker).Hijack()
		if !assert.NoError(t, err) {
			return
		}
		defer conn.Close()
		_, _ = brw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nhijacked")
		_ = brw.Flush()
	})
	mux.HandleFunc("/srv/push", func(w http.ResponseWriter, _ *http.Request) {
		assert.ErrorIs(t, w.(http.Pusher).Push("/x", nil), http.ErrNotSupported, "HTTP/1.1 cannot push")
	})
	srv, client, served := startServer(t, mux)

	_, body := get(t, client, srv.URL+"/srv/stream")
	assert.Equal(t, "ab", body)
	assert.Equal(t, "/srv/stream", <-served)
	_, body = get(t, client, srv.URL+"/srv/hijack")
	assert.Equal(t, "hijacked", body)
	assert.Equal(t, "/srv/hijack", <-served)
	get(t, client, srv.URL+"/srv/push")
	assert.Equal(t, "/srv/push", <-served)
	for _, n := range []string{"/srv/stream", "/srv/hijack", "/srv/push"} {
		assert.Zero(t, cluster(t, n).Threads(), n)
	}
	assert.Zero(t, runtime.InboundNode().Threads())
}

// minimalWriter is a ResponseWriter with none of the optional interfaces.
type minimalWriter struct {
	header http.Header
	code   int
}

func (w *minimalWriter) Header() http.Header         { return w.header }
func (w *minimalWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *minimalWriter) WriteHeader(code int)        { w.code = code }

func TestOptionalInterfacesFailCleanlyWhereTheServerLacksThem(t *testing.T) {
	record(t)
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _, err := w.(http.Hijacker).Hijack()
		assert.ErrorIs(t, err, http.ErrNotSupported)
		assert.ErrorIs(t, http.NewResponseController(w).Flush(), http.ErrNotSupported)
		assert.ErrorIs(t, w.(http.Pusher).Push("/x", nil), http.ErrNotSupported)
		w.(http.Flusher).Flush() // does nothing
		n, err := w.(io.ReaderFrom).ReadFrom(strings.NewReader("body"))
		assert.NoError(t, err)
		assert.Equal(t, int64(4), n)
	})
	mux := http.NewServeMux()
	mux.Handle("/srv/minimal", h)
	w := &minimalWriter{header: http.Header{}}
	nethttp.Middleware()(mux).ServeHTTP(w, httptest.NewRequest("GET", "/srv/minimal", nil))
	assert.Zero(t, cluster(t, "/srv/minimal").Threads())
}

// hijackWriter is a ResponseWriter whose connection can be hijacked.
type hijackWriter struct{ minimalWriter }

func (*hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) { return nil, nil, nil }

// A hijacked connection's answer is the handler's own business: whatever
// status was written before or after the hijack, it is not an error.
func TestAHijackedResponseIsNotCountedByItsStatus(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"503 after the hijack", func(w http.ResponseWriter, _ *http.Request) {
			_, _, _ = w.(http.Hijacker).Hijack()
			w.WriteHeader(http.StatusServiceUnavailable)
		}},
		{"503 before the hijack", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _, _ = w.(http.Hijacker).Hijack()
			_, _ = w.Write([]byte("x"))
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := record(t)
			name := "/srv/hijacked/" + string(rune('a'+i))
			mux := http.NewServeMux()
			mux.Handle(name, tt.handler)
			w := &hijackWriter{minimalWriter{header: http.Header{}}}
			nethttp.Middleware()(mux).ServeHTTP(w, httptest.NewRequest("GET", name, nil))
			assert.Equal(t, name, rec.lastExit().Name)
			assert.NoError(t, rec.lastExit().Err)
		})
	}
}
