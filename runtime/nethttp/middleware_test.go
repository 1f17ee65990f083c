package nethttp_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// serve sends one request through Middleware(opts...) around a mux that
// serves h at pattern.
func serve(pattern string, h http.Handler, req *http.Request, opts ...nethttp.Option) *httptest.ResponseRecorder {
	mux := http.NewServeMux()
	mux.Handle(pattern, h)
	w := httptest.NewRecorder()
	nethttp.Middleware(opts...)(mux).ServeHTTP(w, req)
	return w
}

func TestBlockedRequestGets429WithRetryAfterAndTheHandlerIsNotCalled(t *testing.T) {
	record(t).blocking("/mw/blocked")
	called := false
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true })

	w := serve("/mw/blocked", h, httptest.NewRequest("GET", "/mw/blocked", nil))

	assert.False(t, called)
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "1", w.Header().Get("Retry-After"))
	assert.Equal(t, nethttp.BlockMessage+"\n", w.Body.String())
	assert.Equal(t, "text/plain; charset=utf-8", w.Header().Get("Content-Type"))
	assert.Zero(t, cluster(t, "/mw/blocked").Threads())
}

func TestBlockHandlerAnswersBlockedRequests(t *testing.T) {
	record(t).blocking("/mw/blockhandler")
	var got *runtime.BlockError
	handler := nethttp.WithBlockHandler(func(w http.ResponseWriter, _ *http.Request, b *runtime.BlockError) {
		got = b
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":"busy"}`)
	})
	page := nethttp.WithBlockPage("/busy.html")

	// The block handler wins over the block page, as Spring's bean does.
	w := serve("/mw/blockhandler", ok, httptest.NewRequest("GET", "/mw/blockhandler", nil), page, handler)

	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Equal(t, `{"error":"busy"}`, w.Body.String())
	require.NotNil(t, got)
	assert.Equal(t, "/mw/blockhandler", got.Resource())
	assert.Equal(t, runtime.BlockCustom, got.BlockType())
	assert.True(t, errors.Is(got, runtime.ErrBlocked))
}

func TestBlockPageRedirectsBlockedRequests(t *testing.T) {
	record(t).blocking("/mw/blockpage")
	w := serve("/mw/blockpage", ok, httptest.NewRequest("GET", "/mw/blockpage", nil),
		nethttp.WithBlockPage("https://example.com/busy.html"))
	assert.Equal(t, http.StatusFound, w.Code)
	assert.Equal(t, "https://example.com/busy.html", w.Header().Get("Location"))
}

func TestHandlerPanicIsRecordedAndGoesOn(t *testing.T) {
	tests := []struct {
		name  string
		value any
	}{
		{"a panic value", "boom"},
		{"an error", io.ErrUnexpectedEOF},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktest.Install(t)
			rec := record(t)
			name := "/mw/panic/" + string(rune('a'+i))
			h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(tt.value) })
			mux := http.NewServeMux()
			mux.Handle(name, h)
			mw := nethttp.Middleware()(mux)

			assert.PanicsWithValue(t, tt.value, func() {
				mw.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", name, nil))
			})

			cl := cluster(t, name)
			assert.Zero(t, cl.Threads(), "the entry exited")
			assert.Zero(t, runtime.InboundNode().Threads())
			assert.Equal(t, 1.0, cl.ExceptionQPS(clk.Millis()))
			var pe *nethttp.PanicError
			require.ErrorAs(t, rec.lastExit().Err, &pe)
			assert.Equal(t, tt.value, pe.Value)
			if err, isErr := tt.value.(error); isErr {
				assert.ErrorIs(t, rec.lastExit().Err, err)
			}
		})
	}
}

func TestErrorStatusesAreRecordedAsExceptions(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		opts    []nethttp.Option
		wantErr bool
	}{
		{name: "500 is an error", status: 500, wantErr: true},
		{name: "503 is an error", status: 503, wantErr: true},
		{name: "200 is not", status: 200},
		{name: "404 is not", status: 404},
		{name: "429 from the handler is not", status: 429},
		{name: "a custom predicate counts 404", status: 404, wantErr: true,
			opts: []nethttp.Option{nethttp.WithErrorStatus(func(c int) bool { return c == 404 })}},
		{name: "a custom predicate ignores 500", status: 500,
			opts: []nethttp.Option{nethttp.WithErrorStatus(func(c int) bool { return c == 404 })}},
		{name: "a nil predicate records no status", status: 500,
			opts: []nethttp.Option{nethttp.WithErrorStatus(nil)}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktest.Install(t)
			rec := record(t)
			name := "/mw/status/" + string(rune('a'+i))
			h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(tt.status) })

			w := serve(name, h, httptest.NewRequest("GET", name, nil), tt.opts...)

			assert.Equal(t, tt.status, w.Code)
			now := clk.Millis()
			cl := cluster(t, name)
			assert.Equal(t, 1.0, cl.PassQPS(now))
			assert.Equal(t, 1.0, cl.SuccessQPS(now), "a completed call counts as a success either way, as in Java")
			if tt.wantErr {
				assert.Equal(t, 1.0, cl.ExceptionQPS(now))
				var se *nethttp.StatusError
				require.ErrorAs(t, rec.lastExit().Err, &se)
				assert.Equal(t, tt.status, se.Code)
			} else {
				assert.Zero(t, cl.ExceptionQPS(now))
				assert.NoError(t, rec.lastExit().Err)
			}
		})
	}
}

func TestStatusIsReadFromWritesFlushesAndInformationalHeaders(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		wantErr bool
	}{
		{"no write means 200", func(http.ResponseWriter, *http.Request) {}, false},
		{"write before WriteHeader means 200", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("x"))
			w.WriteHeader(500) // superfluous: ignored by net/http
		}, false},
		{"flush means 200", func(w http.ResponseWriter, _ *http.Request) {
			w.(http.Flusher).Flush()
			w.WriteHeader(500)
		}, false},
		{"103 then 502", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusBadGateway)
		}, true},
		{"ReadFrom means 200", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.(io.ReaderFrom).ReadFrom(strings.NewReader("body"))
		}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktest.Install(t)
			record(t)
			name := "/mw/writes/" + string(rune('a'+i))
			serve(name, tt.handler, httptest.NewRequest("GET", name, nil))
			want := 0.0
			if tt.wantErr {
				want = 1
			}
			assert.Equal(t, want, cluster(t, name).ExceptionQPS(clk.Millis()))
		})
	}
}

func TestErrorStatusOffPassesTheResponseWriterThrough(t *testing.T) {
	record(t)
	var got http.ResponseWriter
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { got = w })
	serve("/mw/passthrough", h, httptest.NewRequest("GET", "/mw/passthrough", nil), nethttp.WithErrorStatus(nil))
	assert.IsType(t, &httptest.ResponseRecorder{}, got)
}

func TestNestedProtectedCallsBecomeChildrenInTheTree(t *testing.T) {
	record(t)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e, b := runtime.Entry(r.Context(), "mwNestedGetOrder") // what a generated wrapper does
		require.Nil(t, b)
		defer e.Exit()
		_, _ = io.WriteString(w, "order")
	})
	w := serve("GET /mw/nested", h, httptest.NewRequest("GET", "/mw/nested", nil))
	require.Equal(t, "order", w.Body.String())

	entrance := findChild(runtime.Tree(), nethttp.ContextName)
	require.NotNil(t, entrance, "the web context's entrance")
	route := findChild(*entrance, "/mw/nested")
	require.NotNil(t, route)
	assert.NotNil(t, findChild(*route, "mwNestedGetOrder"), "the wrapper's resource under the route's")
	assert.Zero(t, cluster(t, "mwNestedGetOrder").Threads())
}

func findChild(n runtime.TreeNode, name string) *runtime.TreeNode {
	for i := range n.Children {
		if n.Children[i].Name == name {
			return &n.Children[i]
		}
	}
	return nil
}

func TestArgsAreComputedOnlyForResourcesThatReadThem(t *testing.T) {
	rec := record(t).wantingArgs("/mw/args/hot")
	calls := 0
	args := nethttp.WithArgs(func(r *http.Request) []any {
		calls++
		return []any{r.URL.Query().Get("user")}
	})
	mux := http.NewServeMux()
	mux.Handle("/mw/args/hot", ok)
	mux.Handle("/mw/args/cold", ok)
	h := nethttp.Middleware(args)(mux)

	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/mw/args/hot?user=vip", nil))
	assert.Equal(t, []any{"vip"}, rec.last().Args)
	assert.Equal(t, 1, calls)

	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/mw/args/cold?user=vip", nil))
	assert.Nil(t, rec.last().Args)
	assert.Equal(t, 1, calls, "no boxing where no rule reads args")
}

func TestRequestContextCancellationReachesTheHandler(t *testing.T) {
	record(t)
	h := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
			t.Error("the handler's context is not the request's")
		}
	})
	req := httptest.NewRequest("GET", "/mw/cancel", nil)
	ctx, cancel := contextWithCancel(req)
	cancel()
	serve("/mw/cancel", h, req.WithContext(ctx))
}

func TestHandlerGoexitExitsTheEntryWithoutAnError(t *testing.T) {
	clk := clocktest.Install(t)
	record(t)
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { goruntime.Goexit() })
	mux := http.NewServeMux()
	mux.Handle("/mw/goexit", h)
	mw := nethttp.Middleware()(mux)
	done := make(chan struct{})
	go func() {
		defer close(done)
		mw.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/mw/goexit", nil))
	}()
	<-done
	cl := cluster(t, "/mw/goexit")
	assert.Zero(t, cl.Threads())
	assert.Zero(t, cl.ExceptionQPS(clk.Millis()))
	assert.Equal(t, 1.0, cl.SuccessQPS(clk.Millis()))
}

func TestServeMuxProtectsItsHandlersAndRoutesOnce(t *testing.T) {
	rec := record(t).blocking("/smux/blocked/{id}")
	mux := nethttp.NewServeMux(nethttp.WithOriginParser(nethttp.OriginFromHeader("S-user")))
	var got string
	mux.HandleFunc("GET /smux/ok/{id}", func(_ http.ResponseWriter, r *http.Request) { got = r.PathValue("id") })
	mux.HandleFunc("GET /smux/blocked/{id}", func(http.ResponseWriter, *http.Request) { t.Error("a blocked request reached its handler") })
	mux.ServeMux.HandleFunc("GET /smux/ops", func(http.ResponseWriter, *http.Request) {})

	req := httptest.NewRequest("GET", "/smux/ok/7", nil)
	req.Header.Set("S-user", "alice")
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, req)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "7", got, "path values survive")

	w = httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", "/smux/blocked/1", nil))
	assert.Equal(t, http.StatusTooManyRequests, w.Code)

	mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/smux/ops", nil))
	mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/smux/missing", nil))
	var names []string
	for _, c := range rec.calls {
		names = append(names, c.Name+" "+c.Origin)
	}
	assert.Equal(t, []string{"/smux/ok/{id} alice", "/smux/blocked/{id} "}, names, "unprotected routes and 404s are not entered")
}
