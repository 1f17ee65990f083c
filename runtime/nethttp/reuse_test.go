package nethttp_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// Refused requests leave their allocation to the next requests of the
// middleware: admitted requests served in it, concurrently with
// refusals, each see their own entry and context, and every count
// balances.
func TestRequestsAdmittedInARefusalsMemoryAreTheirOwn(t *testing.T) {
	record(t).blocking("/mw/spare/refused")
	var served, wrong atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		if name, _ := runtime.ContextName(r.Context()); name != nethttp.ContextName {
			wrong.Add(1)
		}
		if r.Pattern != "/mw/spare/admitted/{id}" || r.PathValue("id") == "" {
			wrong.Add(1)
		}
	})
	mux := http.NewServeMux()
	mux.Handle("/mw/spare/admitted/{id}", h)
	mux.Handle("/mw/spare/refused", h)
	for _, handler := range []http.Handler{
		nethttp.Middleware()(mux),
		nethttp.Middleware(nethttp.WithErrorStatus(nil))(mux),
	} {
		var wg sync.WaitGroup
		var refused atomic.Int64
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 100 {
					path := "/mw/spare/refused"
					if (i+g)%2 == 0 {
						path = "/mw/spare/admitted/7"
					}
					w := httptest.NewRecorder()
					handler.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
					if w.Code == http.StatusTooManyRequests {
						refused.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, int64(200), refused.Load())
	}
	assert.Equal(t, int64(400), served.Load())
	assert.Zero(t, wrong.Load())
	assert.Zero(t, cluster(t, "/mw/spare/refused").Threads())
	assert.Zero(t, cluster(t, "/mw/spare/admitted/{id}").Threads())
}

type pointerHandler struct{ name string }

func (*pointerHandler) ServeHTTP(http.ResponseWriter, *http.Request) {}

// A router that wraps its handlers on every request (gorilla/mux) gets
// the middleware it got for the same handler before; other handlers,
// even equal ones in other places, get their own.
func TestWrappingTheSameHandlerAgainGivesTheSameMiddleware(t *testing.T) {
	fn := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	other := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	p1, p2 := &pointerHandler{"a"}, &pointerHandler{"a"}
	for _, h := range []http.Handler{fn, p1, http.NewServeMux()} {
		mw := nethttp.Middleware() // its slots are free
		assert.Same(t, mw(h), mw(h), "%T", h)
	}

	mw := nethttp.Middleware()
	first := mw(fn) // a HandlerFunc, whose type is not comparable
	assert.NotSame(t, first, mw(other))
	assert.NotSame(t, mw(p1), mw(p2), "equal values, two handlers")
	for range 200 { // more handlers than slots: each still gets its own
		h := &pointerHandler{}
		wrapped := mw(h)
		assert.NotSame(t, wrapped, mw(&pointerHandler{}))
	}
	assert.Same(t, first, mw(fn), "the first handler of a slot keeps it")
}
