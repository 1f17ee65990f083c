package nethttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/ctxtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Six requests cancelled by their own callers used to open an error-count
// breaker on a healthy upstream: the caller's cancellation was recorded as
// the upstream's error. It is not, whether the caller gives up before the
// response, while reading its body, or at its deadline.
func TestCallerCancellationIsNotTheUpstreamsError(t *testing.T) {
	noLeaks(t)
	clk := clocktest.Install(t)
	rec := record(t)
	arrived := make(chan struct{}, 1)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/slow":
			arrived <- struct{}{}
			<-r.Context().Done() // healthy, just slower than the caller's patience
		case "/stream":
			_, _ = io.WriteString(w, "part")
			w.(http.Flusher).Flush()
			arrived <- struct{}{}
			<-r.Context().Done()
		default:
			_, _ = io.WriteString(w, "ok")
		}
	}))
	client := &http.Client{Transport: nethttp.Transport(upstream.Client().Transport)}
	t.Cleanup(func() {
		client.CloseIdleConnections()
		upstream.Close()
	})
	for _, path := range []string{"/slow", "/stream", "/ok"} {
		require.NoError(t, degrade.LoadRules([]degrade.Rule{
			{Resource: "GET:" + upstream.URL + path, Grade: degrade.ErrorCount, Count: 2, TimeWindow: 60, MinRequestAmount: 1},
		}))
		t.Cleanup(func() { _ = degrade.LoadRules(nil) })

		for i := range 6 {
			// The caller gives up once its request is at the upstream:
			// cancelling, or at a deadline that passes then. A real 20 ms
			// timer could fire before the request got there.
			ctx, cancel := context.WithCancel(context.Background())
			gaveUp := context.Canceled
			if i%2 == 1 && path != "/ok" {
				ctx, cancel = ctxtest.Deadline()
				gaveUp = context.DeadlineExceeded
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, upstream.URL+path, nil)
			require.NoError(t, err)
			done := make(chan error, 1)
			go func() {
				resp, err := client.Do(req)
				if err == nil {
					_, err = io.ReadAll(resp.Body)
					_ = resp.Body.Close()
				}
				done <- err
			}()
			if path != "/ok" {
				select {
				case <-arrived:
				case err := <-done:
					cancel()
					require.FailNow(t, "the call ended before reaching the upstream", "%s: call %d: %v", path, i, err)
				}
			}
			cancel()
			err = <-done
			require.False(t, errors.Is(err, runtime.ErrBlocked), "%s: call %d was blocked: %v", path, i, err)
			if path != "/ok" {
				require.ErrorIs(t, err, gaveUp, "%s: call %d", path, i)
				assert.NoError(t, rec.lastExit().Err, "%s: the caller's cancellation is not recorded", path)
			}
		}
		cl := cluster(t, "GET:"+upstream.URL+path)
		assert.Zero(t, cl.ExceptionQPS(clk.Millis()), path)
		assert.Zero(t, cl.Threads(), path)
		for _, b := range degrade.Breakers() {
			assert.Equal(t, degrade.Closed, b.State, "%s: the breaker stays closed", path)
		}
	}
}
