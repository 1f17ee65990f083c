package sentinelgoframe_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gogf/gf/v2/net/ghttp"
	"github.com/stretchr/testify/assert"

	sentinelgoframe "github.com/sentinelgen/sentinelgen/adapters/goframe"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// The adapter adds one allocation to an admitted request, the entry alone
// (the handlers see it in the request's context, set in place as GoFrame's
// SetCtx does), and none to a refused one, which
// reuses the allocation a refusal before it left. GoFrame itself spends
// seven allocations more on a 429 than on a 200: six in its server's
// lookup of status handlers, which formats two keys for any status but
// 200, and one for the body in its response buffer. A refusal so costs
// exactly what a handler of GoFrame's own that answers 429 does.
func TestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	webtest.Refuse(t, "/alloc/refused/:id")
	allocs := func(protected bool, path string, want int) float64 {
		var srv *ghttp.Server
		serve(t, func(s *ghttp.Server) {
			srv = s
			s.Group("/", func(group *ghttp.RouterGroup) {
				if protected {
					group.Middleware(sentinelgoframe.Middleware())
				}
				ok := func(r *ghttp.Request) { r.Response.WriteHeader(http.StatusOK) }
				group.GET("/alloc/admitted/:id", ok)
				group.GET("/alloc/refused/:id", ok)
				group.GET("/alloc/busy/:id", func(r *ghttp.Request) {
					r.Response.WriteHeader(http.StatusTooManyRequests)
					r.Response.Write("busy\n")
				})
			})
		})
		// GoFrame closes the body it wraps: a request with none (nil)
		// would not do.
		req := httptest.NewRequest(http.MethodGet, path, nil)
		w := webtest.NewWriter()
		srv.ServeHTTP(w, req)
		assert.Equal(t, want, w.Code, path)
		return testing.AllocsPerRun(200, func() {
			w.Code = 0
			srv.ServeHTTP(w, req)
		})
	}
	bare := allocs(false, "/alloc/admitted/1", http.StatusOK)
	busy := allocs(false, "/alloc/busy/1", http.StatusTooManyRequests)
	admitted := allocs(true, "/alloc/admitted/1", http.StatusOK)
	refused := allocs(true, "/alloc/refused/1", http.StatusTooManyRequests)
	assert.Equal(t, []float64{27, 34, 28, 34}, []float64{bare, busy, admitted, refused},
		"bare, GoFrame's own 429, admitted, refused")
	assert.Equal(t, busy, refused, "a refusal adds nothing to GoFrame's own 429")
}
