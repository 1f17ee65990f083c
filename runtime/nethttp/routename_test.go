package nethttp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// prefixRouter is a router that is not a ServeMux: it routes by path
// prefix and knows each request's pattern before the handler runs.
type prefixRouter map[string]string // path prefix -> pattern

func (p prefixRouter) pattern(r *http.Request) string {
	for prefix, pattern := range p {
		if strings.HasPrefix(r.URL.Path, prefix) {
			return pattern
		}
	}
	return ""
}

func TestWithRouteNameNamesResourcesForAnyRouter(t *testing.T) {
	router := prefixRouter{"/rn/order/": "/rn/order/:id", "/rn/blocked": "GET /rn/blocked"}
	rec := record(t).blocking("/rn/blocked")
	tests := []struct {
		name   string
		opts   []nethttp.Option
		target string
		want   string // "" = not protected
		status int
	}{
		{name: "the router's pattern is the resource", target: "/rn/order/42", want: "/rn/order/:id", status: http.StatusOK},
		{name: "a method in the pattern is stripped", target: "/rn/blocked", want: "/rn/blocked", status: http.StatusTooManyRequests},
		{name: "the method prefix applies", opts: []nethttp.Option{nethttp.WithMethodPrefix()},
			target: "/rn/order/7", want: "GET:/rn/order/:id", status: http.StatusOK},
		{name: "no pattern: not protected", target: "/rn/elsewhere", status: http.StatusOK},
		{name: "no pattern, unmatched path asked for", opts: []nethttp.Option{nethttp.WithUnmatchedPath()},
			target: "/rn/elsewhere", want: "/rn/elsewhere", status: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var inHandler string
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				inHandler, _ = runtime.ContextName(r.Context())
			})
			before := len(rec.names())
			mw := nethttp.Middleware(append([]nethttp.Option{nethttp.WithRouteName(router.pattern)}, tt.opts...)...)(h)
			w := httptest.NewRecorder()
			mw.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tt.target, nil))
			assert.Equal(t, tt.status, w.Code)
			names := rec.names()[before:]
			if tt.want == "" {
				assert.Empty(t, names)
				assert.Equal(t, runtime.DefaultContextName, inHandler)
				return
			}
			require.Equal(t, []string{tt.want}, names)
			if tt.status == http.StatusOK {
				assert.Equal(t, nethttp.ContextName, inHandler, "the handler's request carries the entry")
			}
		})
	}
}

// WithRouteName takes precedence over a ServeMux the middleware wraps.
func TestWithRouteNameIsAskedBeforeTheMux(t *testing.T) {
	rec := record(t)
	mux := http.NewServeMux()
	mux.Handle("/rn/mux/{id}", ok)
	mw := nethttp.Middleware(nethttp.WithRouteName(func(*http.Request) string { return "/rn/named" }))(mux)
	mw.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/rn/mux/1", nil))
	assert.Equal(t, "/rn/named", rec.last().Name)
}
