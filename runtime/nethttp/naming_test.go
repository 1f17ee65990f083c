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

func TestMiddlewareNamesResourcesAfterTheMatchedPattern(t *testing.T) {
	cleanIDs := nethttp.WithURLCleaner(func(_ *http.Request, res string) string {
		return strings.Replace(res, "/{id}", "/*", 1)
	})
	skipHealth := nethttp.WithURLCleaner(func(_ *http.Request, res string) string {
		if res == "/name/health" {
			return ""
		}
		return res
	})
	tests := []struct {
		name     string
		patterns []string
		opts     []nethttp.Option
		method   string
		target   string
		host     string
		want     string // "" = not protected
		status   int
	}{
		{name: "method is stripped from the pattern", patterns: []string{"GET /name/order"},
			target: "/name/order", want: "/name/order"},
		{name: "wildcards stay as written", patterns: []string{"/name/order/{id}"},
			target: "/name/order/42", want: "/name/order/{id}"},
		{name: "rest wildcards stay as written", patterns: []string{"GET /name/files/{path...}"},
			target: "/name/files/a/b/c", want: "/name/files/{path...}"},
		{name: "host is stripped from the pattern", patterns: []string{"name.example.com/name/hosted"},
			target: "/name/hosted", host: "name.example.com", want: "/name/hosted"},
		{name: "method and host are stripped together", patterns: []string{"POST name.example.com/name/both/{id}"},
			method: "POST", target: "/name/both/7", host: "name.example.com", want: "/name/both/{id}"},
		{name: "the most specific pattern wins", patterns: []string{"/name/spec/", "/name/spec/{id}"},
			target: "/name/spec/9", want: "/name/spec/{id}"},
		{name: "method prefix uses the request's method", patterns: []string{"GET /name/m"},
			opts: []nethttp.Option{nethttp.WithMethodPrefix()}, target: "/name/m", want: "GET:/name/m"},
		{name: "method prefix: HEAD served by a GET pattern", patterns: []string{"GET /name/m"},
			opts: []nethttp.Option{nethttp.WithMethodPrefix()}, method: "HEAD", target: "/name/m", want: "HEAD:/name/m"},
		{name: "method prefix: non-standard methods fold into OTHER", patterns: []string{"/name/any"},
			opts: []nethttp.Option{nethttp.WithMethodPrefix()}, method: "BREW", target: "/name/any", want: "OTHER:/name/any"},
		{name: "method prefix: a custom method the pattern names is kept", patterns: []string{"PURGE /name/cache"},
			opts: []nethttp.Option{nethttp.WithMethodPrefix()}, method: "PURGE", target: "/name/cache", want: "PURGE:/name/cache"},
		{name: "unmatched requests are not protected by default", patterns: []string{"/name/exists"},
			target: "/name/missing", want: "", status: http.StatusNotFound},
		{name: "method-not-allowed requests are unmatched", patterns: []string{"GET /name/get-only"},
			method: "DELETE", target: "/name/get-only", want: "", status: http.StatusMethodNotAllowed},
		{name: "unmatched requests use their path when asked", patterns: []string{"/name/exists"},
			opts: []nethttp.Option{nethttp.WithUnmatchedPath()}, target: "/name/missing?q=1", want: "/name/missing", status: http.StatusNotFound},
		{name: "unmatched path with method prefix", patterns: []string{"/name/exists"},
			opts:   []nethttp.Option{nethttp.WithUnmatchedPath(), nethttp.WithMethodPrefix()},
			target: "/name/missing", want: "GET:/name/missing", status: http.StatusNotFound},
		{name: "trailing-slash redirects are not protected", patterns: []string{"/name/dir/"},
			target: "/name/dir", want: "", status: http.StatusMovedPermanently},
		{name: "path-cleaning redirects are not protected", patterns: []string{"/name/clean"},
			target: "/name/x/../clean", want: "", status: http.StatusMovedPermanently},
		{name: "the cleaner rewrites the pattern", patterns: []string{"/name/c/{id}"},
			opts: []nethttp.Option{cleanIDs}, target: "/name/c/5", want: "/name/c/*"},
		{name: "the method prefix goes on after the cleaner", patterns: []string{"/name/cm/{id}"},
			opts: []nethttp.Option{cleanIDs, nethttp.WithMethodPrefix()}, method: "PUT", target: "/name/cm/5", want: "PUT:/name/cm/*"},
		{name: "a cleaner returning empty skips protection", patterns: []string{"/name/health"},
			opts: []nethttp.Option{skipHealth}, target: "/name/health", want: ""},
		{name: "a cleaner leaving the name alone", patterns: []string{"/name/kept"},
			opts: []nethttp.Option{skipHealth}, target: "/name/kept", want: "/name/kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := record(t)
			mux := http.NewServeMux()
			for _, p := range tt.patterns {
				mux.Handle(p, ok)
			}
			h := nethttp.Middleware(tt.opts...)(mux)
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			req := httptest.NewRequest(method, tt.target, nil)
			if tt.host != "" {
				req.Host = tt.host
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)

			want := tt.status
			if want == 0 {
				want = http.StatusOK
			}
			if want/100 == 3 {
				assert.Equal(t, 3, w.Code/100, "a redirect (301 or 307 by Go version)")
			} else {
				assert.Equal(t, want, w.Code)
			}
			if tt.want == "" {
				assert.Empty(t, rec.names(), "no entry for an unprotected request")
				return
			}
			assert.Equal(t, []string{tt.want}, rec.names())
			assert.Equal(t, runtime.Inbound, rec.last().Traffic)
			assert.Equal(t, runtime.Web, rec.last().Type)
		})
	}
}

func TestMiddlewareOnARegisteredHandlerReadsRequestPattern(t *testing.T) {
	rec := record(t)
	mux := http.NewServeMux()
	nethttp.Handle(mux, "GET /name/handle/{id}", ok)
	nethttp.HandleFunc(mux, "POST name.example.com/name/handlefunc", ok, nethttp.WithMethodPrefix())
	mw := nethttp.Middleware()
	mux.Handle("/name/wrapped/{id}", mw(ok))

	for _, r := range []*http.Request{
		httptest.NewRequest("GET", "/name/handle/1", nil),
		httptest.NewRequest("POST", "http://name.example.com/name/handlefunc", nil),
		httptest.NewRequest("GET", "/name/wrapped/2", nil),
	} {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		require.Equal(t, http.StatusOK, w.Code)
	}
	assert.Equal(t, []string{"/name/handle/{id}", "POST:/name/handlefunc", "/name/wrapped/{id}"}, rec.names())
}

func TestMiddlewareWithServeMuxFindsThePatternThroughOtherMiddleware(t *testing.T) {
	rec := record(t)
	mux := http.NewServeMux()
	mux.Handle("/name/via/{id}", ok)
	logging := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(w, r) })
	}
	h := nethttp.Middleware(nethttp.WithServeMux(mux))(logging(mux))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/name/via/3", nil))
	assert.Equal(t, []string{"/name/via/{id}"}, rec.names())
}

func TestMiddlewareWithoutRoutingInformationProtectsNothingByDefault(t *testing.T) {
	rec := record(t)
	h := nethttp.Middleware()(ok) // not a mux, not on a mux
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/name/bare", nil))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Empty(t, rec.names())

	h = nethttp.Middleware(nethttp.WithUnmatchedPath())(ok)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/name/bare", nil))
	assert.Equal(t, []string{"/name/bare"}, rec.names())
}

func TestMiddlewareEntersTheWebContextWithTheParsedOrigin(t *testing.T) {
	tests := []struct {
		name       string
		opts       []nethttp.Option
		header     string
		wantOrigin string
	}{
		{name: "no origin parser: origin is empty", header: "alice", wantOrigin: ""},
		{name: "header parser reads the header", opts: []nethttp.Option{nethttp.WithOriginParser(nethttp.OriginFromHeader("s-user"))},
			header: "alice", wantOrigin: "alice"},
		{name: "header parser without the header", opts: []nethttp.Option{nethttp.WithOriginParser(nethttp.OriginFromHeader("S-user"))},
			wantOrigin: ""},
		{name: "custom parser", opts: []nethttp.Option{nethttp.WithOriginParser(func(r *http.Request) string { return r.URL.Query().Get("app") })},
			wantOrigin: "fromquery"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := record(t)
			var ctxName, ctxOrigin string
			mux := http.NewServeMux()
			mux.HandleFunc("/name/origin", func(_ http.ResponseWriter, r *http.Request) {
				ctxName, ctxOrigin = runtime.ContextName(r.Context())
			})
			req := httptest.NewRequest("GET", "/name/origin?app=fromquery", nil)
			if tt.header != "" {
				req.Header.Set("S-User", tt.header)
			}
			nethttp.Middleware(tt.opts...)(mux).ServeHTTP(httptest.NewRecorder(), req)

			c := rec.last()
			assert.Equal(t, nethttp.ContextName, c.Context)
			assert.Equal(t, "sentinel_spring_web_context", c.Context)
			assert.Equal(t, tt.wantOrigin, c.Origin)
			assert.Equal(t, nethttp.ContextName, ctxName, "the handler's context carries the Sentinel context")
			assert.Equal(t, tt.wantOrigin, ctxOrigin)
			if tt.wantOrigin != "" {
				assert.NotNil(t, cluster(t, "/name/origin").OriginNode(tt.wantOrigin), "per-origin statistics")
			}
		})
	}
}

func TestMiddlewareOnAnInnerMuxNamesTheInnerPattern(t *testing.T) {
	rec := record(t)
	inner := http.NewServeMux()
	inner.Handle("GET /items/{id}", ok)
	outer := http.NewServeMux()
	// The outer mux sets r.Pattern to "/name/api/"; the inner mux decides.
	outer.Handle("/name/api/", http.StripPrefix("/name/api", nethttp.Middleware()(inner)))
	w := httptest.NewRecorder()
	outer.ServeHTTP(w, httptest.NewRequest("GET", "/name/api/items/3", nil))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, []string{"/items/{id}"}, rec.names())
}
