package nethttp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// A handler may (wrongly) keep its ResponseWriter after it returns. The
// writer the middleware hands it is that request's own, never reused: late
// writes through it reach the request they came from, never the response
// of a request served after it.
func TestAResponseWriterKeptPastItsHandlerCannotReachAnotherResponse(t *testing.T) {
	tests := []struct {
		name    string
		handler func(pattern string, h http.Handler) http.Handler
	}{
		{"NewServeMux", func(pattern string, h http.Handler) http.Handler {
			mux := nethttp.NewServeMux()
			mux.Handle(pattern, h)
			return mux
		}},
		{"Handle", func(pattern string, h http.Handler) http.Handler {
			mux := http.NewServeMux()
			nethttp.Handle(mux, pattern, h)
			return mux
		}},
		{"Middleware around a mux", func(pattern string, h http.Handler) http.Handler {
			mux := http.NewServeMux()
			mux.Handle(pattern, h)
			return nethttp.Middleware()(mux)
		}},
		{"a resource named per request", func(pattern string, h http.Handler) http.Handler {
			mux := http.NewServeMux()
			mux.Handle(pattern, h)
			cleaned := nethttp.WithURLCleaner(func(_ *http.Request, name string) string { return name + "/cleaned" })
			return nethttp.Middleware(cleaned)(mux)
		}},
		{"error statuses off", func(pattern string, h http.Handler) http.Handler {
			mux := nethttp.NewServeMux(nethttp.WithErrorStatus(nil))
			mux.Handle(pattern, h)
			return mux
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			record(t)
			var kept http.ResponseWriter
			served := 0
			h := tt.handler("GET /kept/"+string(rune('a'+i))+"/{id}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				served++
				if r.PathValue("id") == "first" {
					kept = w // and returns without answering
					return
				}
				w.Header().Set("X-Answer", "second")
				_, _ = io.WriteString(w, "second")
			}))
			path := "/kept/" + string(rune('a'+i))
			first, second := httptest.NewRecorder(), httptest.NewRecorder()

			h.ServeHTTP(first, httptest.NewRequest("GET", path+"/first", nil))
			h.ServeHTTP(second, httptest.NewRequest("GET", path+"/second", nil))
			require.Equal(t, 2, served)
			require.NotNil(t, kept)
			kept.Header().Set("X-Late", "late")
			kept.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(kept, "late")
			if f, ok := kept.(http.Flusher); ok {
				f.Flush()
			}

			assert.Equal(t, http.StatusOK, second.Code)
			assert.Equal(t, "second", second.Body.String())
			assert.Equal(t, http.Header{"X-Answer": {"second"}, "Content-Type": {"text/plain; charset=utf-8"}}, second.Header())
			assert.Equal(t, http.StatusInternalServerError, first.Code, "late writes reach their own request's writer")
			assert.Equal(t, "late", first.Body.String())
			assert.Equal(t, "late", first.Header().Get("X-Late"))
		})
	}
}
