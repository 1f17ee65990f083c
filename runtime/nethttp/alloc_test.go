package nethttp_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// A protected request allocates what the mux's routing does and one
// object for the Sentinel context, the entry, the request copy that
// carries the entry (http.Request's context cannot be set in place) and
// the status writer together: 2 in all, as BenchmarkServeMux measures, and
// 3 with the second routing of a wrapped mux.
func TestProtectedRequestsAllocateAtMostThreeTimes(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	tests := []struct {
		name    string
		handler func(path string) http.Handler
		max     float64
	}{
		{"NewServeMux", func(path string) http.Handler {
			mux := nethttp.NewServeMux()
			mux.Handle("GET "+path+"/{id}", nop)
			mux.Handle("/alloc/other/{id}", nop)
			return mux
		}, 2},
		{"NewServeMux without error statuses", func(path string) http.Handler {
			mux := nethttp.NewServeMux(nethttp.WithErrorStatus(nil))
			mux.Handle("GET "+path+"/{id}", nop)
			return mux
		}, 2},
		{"Handle", func(path string) http.Handler {
			mux := http.NewServeMux()
			nethttp.Handle(mux, "GET "+path+"/{id}", nop)
			return mux
		}, 2},
		{"Middleware around a mux, which routes twice", func(path string) http.Handler {
			return nethttp.Middleware()(benchMux("GET " + path + "/{id}"))
		}, 3},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "/alloc/" + string(rune('a'+i))
			h := tt.handler(path)
			w := httptest.NewRecorder()
			req := httptest.NewRequest("GET", path+"/1", nil)
			h.ServeHTTP(w, req) // declares the resource, binds its chain, creates its nodes
			allocs := testing.AllocsPerRun(200, func() { h.ServeHTTP(w, req) })
			assert.LessOrEqual(t, allocs, tt.max)
			assert.Equal(t, http.StatusOK, w.Code)
		})
	}
}
