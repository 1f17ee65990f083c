package compare

import (
	"context"
	"fmt"
	"net/http"
	goruntime "runtime"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/labstack/echo/v4"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// implementation is one protector under comparison: how it loads rules,
// enters a resource, and protects each framework.
type implementation struct {
	name string
	// admitting loads, on each resource, a flow rule that admits every
	// call and a closed breaker; admittingFlow, the flow rule alone;
	// refusing, a flow rule that refuses every call. Each holds until the
	// benchmark ends, and replaces the others.
	admitting     func(tb testing.TB, resources ...string)
	admittingFlow func(tb testing.TB, resources ...string)
	refusing      func(tb testing.TB, resources ...string)
	// enter returns one call of resource: Entry, and Exit when admitted;
	// it reports whether the call was admitted.
	enter func(resource string) func() bool

	// The adapters, and the resource each names a GET of route.
	gin          func() gin.HandlerFunc
	ginResource  func(route string) string
	echo         func() echo.MiddlewareFunc
	echoResource func(route string) string
	grpcUnary    func() grpc.UnaryServerInterceptor
	// nethttp is nil for a protector without a net/http middleware.
	nethttp func() func(http.Handler) http.Handler
}

// implementations are those this binary compares: ours, and
// sentinel-golang's with the sentinelgolang build tag.
var implementations = []implementation{ours}

// floorSink keeps BenchmarkFloor's allocation on the heap.
var floorSink *[16]uintptr

// BenchmarkFloor allocates one object of the entry's 128-byte size class
// (with pointers): the floor of an Entry+Exit that allocates its entry.
func BenchmarkFloor(b *testing.B) {
	b.Run("path=alloc128/impl=floor", func(b *testing.B) {
		b.ReportAllocs()
		defer webtest.CPUTimer(b)()
		for b.Loop() {
			floorSink = &[16]uintptr{}
		}
	})
}

const (
	coreAdmitted = "compare-core-admitted"
	coreRefused  = "compare-core-refused"
)

func BenchmarkCore(b *testing.B) {
	for _, im := range implementations {
		b.Run("path=admitted/impl="+im.name, func(b *testing.B) {
			im.admitting(b, coreAdmitted)
			benchCalls(b, im.enter(coreAdmitted), true, false)
		})
		b.Run("path=admitted-flow/impl="+im.name, func(b *testing.B) {
			im.admittingFlow(b, coreAdmitted)
			benchCalls(b, im.enter(coreAdmitted), true, false)
		})
		b.Run("path=refused/impl="+im.name, func(b *testing.B) {
			im.refusing(b, coreRefused)
			benchCalls(b, im.enter(coreRefused), false, false)
		})
		b.Run("path=admitted-parallel/impl="+im.name, func(b *testing.B) {
			im.admitting(b, coreAdmitted)
			benchCalls(b, im.enter(coreAdmitted), true, true)
		})
		b.Run("path=refused-parallel/impl="+im.name, func(b *testing.B) {
			im.refusing(b, coreRefused)
			benchCalls(b, im.enter(coreRefused), false, true)
		})
	}
}

// benchCalls runs call, which must admit or refuse as want says.
func benchCalls(b *testing.B, call func() bool, want, parallel bool) {
	if call() != want {
		b.Fatalf("admitted %v, want %v", !want, want)
	}
	b.ReportAllocs()
	defer webtest.CPUTimer(b)()
	if !parallel {
		for b.Loop() {
			call()
		}
		return
	}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			call()
		}
	})
}

// BenchmarkResources is the admitted call round robin over n resources,
// each with its flow rule and breaker: a call must cost the same however
// many resources there are. With 6,000 it also reports the heap each
// resource holds once called (B/resource).
func BenchmarkResources(b *testing.B) {
	for _, im := range implementations {
		for _, n := range []int{1, 6000} {
			b.Run(fmt.Sprintf("path=resources-%d/impl=%s", n, im.name), func(b *testing.B) {
				names := make([]string, n)
				for i := range names {
					names[i] = fmt.Sprintf("compare-resources-%d-%d", n, i)
				}
				first := !made[b.Name()]
				made[b.Name()] = true
				before := liveHeap()
				im.admitting(b, names...)
				calls := make([]func() bool, n)
				for i, name := range names {
					calls[i] = im.enter(name)
					if !calls[i]() { // creates what the first call does
						b.Fatalf("%s refused", name)
					}
				}
				held := liveHeap() - before
				b.ReportAllocs()
				defer webtest.CPUTimer(b)()
				i := 0
				for b.Loop() {
					calls[i]()
					if i++; i == n {
						i = 0
					}
				}
				// What each resource holds once called, its rules'
				// state included: measured where the resources were
				// made, in the first run.
				if first && n > 1 {
					b.ReportMetric(float64(held)/float64(n), "B/resource")
				}
			})
		}
	}
}

// made records the Resources cases that made their resources.
var made = map[string]bool{}

// liveHeap is the heap's live bytes after a collection.
func liveHeap() int64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// The route every framework case serves, and its path.
const (
	ginRoute  = "/compare/order/:id"
	muxRoute  = "/compare/order/{id}"
	routePath = "/compare/order/42"
)

func BenchmarkGin(b *testing.B) {
	gin.SetMode(gin.ReleaseMode)
	serve := func(mw ...gin.HandlerFunc) func() int {
		r := gin.New()
		r.Use(mw...)
		r.GET(ginRoute, func(c *gin.Context) { c.Status(http.StatusOK) })
		return webtest.ServeHTTP(r, routePath)
	}
	b.Run("path=admitted/impl=bare", func(b *testing.B) { benchServe(b, serve(), http.StatusOK) })
	for _, im := range implementations {
		b.Run("path=admitted/impl="+im.name, func(b *testing.B) {
			im.admitting(b, im.ginResource(ginRoute))
			benchServe(b, serve(im.gin()), http.StatusOK)
		})
		b.Run("path=refused/impl="+im.name, func(b *testing.B) {
			im.refusing(b, im.ginResource(ginRoute))
			benchServe(b, serve(im.gin()), http.StatusTooManyRequests)
		})
	}
}

func BenchmarkEcho(b *testing.B) {
	serve := func(mw ...echo.MiddlewareFunc) func() int {
		e := echo.New()
		e.Use(mw...)
		e.GET(ginRoute, func(c echo.Context) error { return c.NoContent(http.StatusOK) })
		return webtest.ServeHTTP(e, routePath)
	}
	b.Run("path=admitted/impl=bare", func(b *testing.B) { benchServe(b, serve(), http.StatusOK) })
	for _, im := range implementations {
		b.Run("path=admitted/impl="+im.name, func(b *testing.B) {
			im.admitting(b, im.echoResource(ginRoute))
			benchServe(b, serve(im.echo()), http.StatusOK)
		})
		b.Run("path=refused/impl="+im.name, func(b *testing.B) {
			im.refusing(b, im.echoResource(ginRoute))
			benchServe(b, serve(im.echo()), http.StatusTooManyRequests)
		})
	}
}

func BenchmarkNetHTTP(b *testing.B) {
	serve := func(mw func(http.Handler) http.Handler) func() int {
		mux := http.NewServeMux()
		mux.HandleFunc("GET "+muxRoute, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
		if mw == nil {
			return webtest.ServeHTTP(mux, routePath)
		}
		return webtest.ServeHTTP(mw(mux), routePath)
	}
	b.Run("path=admitted/impl=bare", func(b *testing.B) { benchServe(b, serve(nil), http.StatusOK) })
	for _, im := range implementations {
		if im.nethttp == nil {
			continue
		}
		b.Run("path=admitted/impl="+im.name, func(b *testing.B) {
			im.admitting(b, muxRoute)
			benchServe(b, serve(im.nethttp()), http.StatusOK)
		})
		b.Run("path=refused/impl="+im.name, func(b *testing.B) {
			im.refusing(b, muxRoute)
			benchServe(b, serve(im.nethttp()), http.StatusTooManyRequests)
		})
	}
}

// benchServe runs serve, whose every response must have status want.
func benchServe(b *testing.B, serve func() int, want int) {
	if got := serve(); got != want {
		b.Fatalf("status %d, want %d", got, want)
	}
	b.ReportAllocs()
	defer webtest.CPUTimer(b)()
	for b.Loop() {
		serve()
	}
}

const grpcMethod = "/compare.Service/Call"

func BenchmarkGRPCUnary(b *testing.B) {
	info := &grpc.UnaryServerInfo{FullMethod: grpcMethod}
	handler := func(ctx context.Context, req any) (any, error) { return req, nil }
	noop := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		return h(ctx, req)
	}
	// admitted: whether the call must pass (a refusal's code is the
	// implementation's: sentinel-golang returns its BlockError, Unknown).
	run := func(b *testing.B, intercept grpc.UnaryServerInterceptor, admitted bool) {
		call := func() codes.Code {
			_, err := intercept(context.Background(), nil, info, handler)
			return status.Code(err) // what grpc-go reads of the error, to send
		}
		if got := call(); (got == codes.OK) != admitted {
			b.Fatalf("code %v, admitted %v", got, admitted)
		}
		b.ReportAllocs()
		defer webtest.CPUTimer(b)()
		for b.Loop() {
			call()
		}
	}
	b.Run("path=admitted/impl=bare", func(b *testing.B) { run(b, noop, true) })
	for _, im := range implementations {
		b.Run("path=admitted/impl="+im.name, func(b *testing.B) {
			im.admitting(b, grpcMethod)
			run(b, im.grpcUnary(), true)
		})
		b.Run("path=refused/impl="+im.name, func(b *testing.B) {
			im.refusing(b, grpcMethod)
			run(b, im.grpcUnary(), false)
		})
	}
}
