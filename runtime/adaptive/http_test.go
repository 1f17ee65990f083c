package adaptive_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// The rule protects an HTTP route through the nethttp middleware
// unchanged: past the limit, a request is answered 429.
func TestItLimitsRequestsThroughTheHTTPMiddleware(t *testing.T) {
	clocktest.Install(t)
	load(t, adaptive.Rule{Resource: "/orders", MinLimit: 1})
	entered, release := make(chan struct{}), make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/orders", func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	})
	h := nethttp.Middleware()(mux)

	done := make(chan int)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/orders", nil))
		done <- rec.Code
	}()
	<-entered // the first request holds the one slot
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/orders", nil))
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	close(release)
	assert.Equal(t, http.StatusOK, <-done)
	assert.Equal(t, int64(0), state(t, "/orders").InFlight)
}
