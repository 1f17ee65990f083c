package nethttp_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// A protected request allocates what the mux's routing does and one
// object for the Sentinel context, the entry, the request copy that
// carries the entry (http.Request's context cannot be set in place) and
// the status writer together; a wrapped mux routes twice. A refused
// request allocates nothing of its own: it reuses the object a refusal
// before it left, and answers with a header and body built once.
func TestRequestAllocations(t *testing.T) {
	routes := func(handle func(mux *http.ServeMux, pattern string)) *http.ServeMux {
		mux := http.NewServeMux()
		handle(mux, "GET /alloc/admitted/{id}")
		handle(mux, "GET /alloc/refused/{id}")
		return mux
	}
	plain := func(mux *http.ServeMux, pattern string) { mux.Handle(pattern, nop) }
	tests := []struct {
		name    string
		handler func(protected bool) http.Handler
		want    webtest.RouteAllocs
	}{
		{"Middleware around a mux, which routes twice", func(protected bool) http.Handler {
			if !protected {
				return routes(plain)
			}
			return nethttp.Middleware()(routes(plain))
		}, webtest.RouteAllocs{Bare: 1, Admitted: 3, Refused: 1}},
		{"Handle", func(protected bool) http.Handler {
			if !protected {
				return routes(plain)
			}
			return routes(func(mux *http.ServeMux, pattern string) { nethttp.Handle(mux, pattern, nop) })
		}, webtest.RouteAllocs{Bare: 1, Admitted: 2, Refused: 1}},
		{"NewServeMux", func(protected bool) http.Handler {
			if !protected {
				return routes(plain)
			}
			mux := nethttp.NewServeMux()
			mux.Handle("GET /alloc/admitted/{id}", nop)
			mux.Handle("GET /alloc/refused/{id}", nop)
			return mux
		}, webtest.RouteAllocs{Bare: 1, Admitted: 2, Refused: 1}},
		{"NewServeMux without error statuses", func(protected bool) http.Handler {
			if !protected {
				return routes(plain)
			}
			mux := nethttp.NewServeMux(nethttp.WithErrorStatus(nil))
			mux.Handle("GET /alloc/admitted/{id}", nop)
			mux.Handle("GET /alloc/refused/{id}", nop)
			return mux
		}, webtest.RouteAllocs{Bare: 1, Admitted: 2, Refused: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := webtest.MeasureAllocs(t, "/alloc/refused/{id}", func(protected bool, path string) func() int {
				return webtest.ServeHTTP(tt.handler(protected), path)
			})
			assert.Equal(t, tt.want, got)
		})
	}
}
