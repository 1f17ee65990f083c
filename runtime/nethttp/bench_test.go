package nethttp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
)

// The middleware's overhead over a bare ServeMux: run with
//
//	go test -run '^$' -bench . -benchmem ./runtime/nethttp
//
// One recorder and one request are reused, so the figures are the
// routing plus what the middleware adds.

var nop = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})

func benchServe(b *testing.B, h http.Handler, req *http.Request) {
	w := httptest.NewRecorder()
	b.ReportAllocs()
	stop := webtest.CPUTimer(b)
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
	stop()
}

func benchMux(pattern string) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle(pattern, nop)
	mux.Handle("/bench/other/{id}", nop)
	return mux
}

func BenchmarkBareMux(b *testing.B) {
	benchServe(b, benchMux("GET /bench/order/{id}"), httptest.NewRequest("GET", "/bench/order/1", nil))
}

func BenchmarkMiddlewareWrappingMux(b *testing.B) {
	h := nethttp.Middleware()(benchMux("GET /bench/order/{id}"))
	benchServe(b, h, httptest.NewRequest("GET", "/bench/order/1", nil))
}

func BenchmarkMiddlewareOnHandler(b *testing.B) {
	mux := http.NewServeMux()
	nethttp.Handle(mux, "GET /bench/handle/{id}", nop)
	mux.Handle("/bench/other/{id}", nop)
	benchServe(b, mux, httptest.NewRequest("GET", "/bench/handle/1", nil))
}

func BenchmarkServeMux(b *testing.B) {
	mux := nethttp.NewServeMux()
	mux.Handle("GET /bench/servemux/{id}", nop)
	mux.Handle("/bench/other/{id}", nop)
	benchServe(b, mux, httptest.NewRequest("GET", "/bench/servemux/1", nil))
}

func BenchmarkServeMuxNoErrorStatus(b *testing.B) {
	mux := nethttp.NewServeMux(nethttp.WithErrorStatus(nil))
	mux.Handle("GET /bench/servemux-nostatus/{id}", nop)
	benchServe(b, mux, httptest.NewRequest("GET", "/bench/servemux-nostatus/1", nil))
}

func BenchmarkMiddlewareMethodPrefix(b *testing.B) {
	h := nethttp.Middleware(nethttp.WithMethodPrefix())(benchMux("GET /bench/method/{id}"))
	benchServe(b, h, httptest.NewRequest("GET", "/bench/method/1", nil))
}

func BenchmarkMiddlewareNoErrorStatus(b *testing.B) {
	h := nethttp.Middleware(nethttp.WithErrorStatus(nil))(benchMux("GET /bench/nostatus/{id}"))
	benchServe(b, h, httptest.NewRequest("GET", "/bench/nostatus/1", nil))
}

func BenchmarkMiddlewareOriginHeader(b *testing.B) {
	h := nethttp.Middleware(nethttp.WithOriginParser(nethttp.OriginFromHeader("S-user")))(benchMux("GET /bench/origin/{id}"))
	req := httptest.NewRequest("GET", "/bench/origin/1", nil)
	req.Header.Set("S-user", "alice")
	benchServe(b, h, req)
}

func BenchmarkBareMux404(b *testing.B) {
	benchServe(b, benchMux("GET /bench/order/{id}"), httptest.NewRequest("GET", "/bench/missing", nil))
}

// BenchmarkMiddlewareUnprotected is a 404: not protected, routed twice.
func BenchmarkMiddlewareUnprotected(b *testing.B) {
	h := nethttp.Middleware()(benchMux("GET /bench/order/{id}"))
	benchServe(b, h, httptest.NewRequest("GET", "/bench/missing", nil))
}

func BenchmarkMiddlewareParallel(b *testing.B) {
	h := nethttp.Middleware()(benchMux("GET /bench/parallel/{id}"))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/bench/parallel/1", nil)
		for pb.Next() {
			h.ServeHTTP(w, req)
		}
	})
}

// staticBody is a reusable response body.
type staticBody struct{ strings.Reader }

func (*staticBody) Close() error { return nil }

func benchRoundTrip(b *testing.B, rt http.RoundTripper) {
	req := httptest.NewRequest("GET", "http://bench.example.com/bench/pay?id=1", nil)
	body := &staticBody{}
	resp := &http.Response{StatusCode: 200, Body: body}
	base := roundTripFunc(func(*http.Request) (*http.Response, error) {
		body.Reset("paid")
		r := *resp
		return &r, nil
	})
	if rt == nil {
		rt = base
	} else {
		rt = nethttp.Transport(base)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, _ := rt.RoundTrip(req)
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
}

func BenchmarkBareRoundTrip(b *testing.B) { benchRoundTrip(b, nil) }

func BenchmarkTransport(b *testing.B) { benchRoundTrip(b, http.DefaultTransport) }

// BenchmarkMiddlewareRefused is BenchmarkMiddlewareWrappingMux with a flow
// rule that refuses every request, answered by default.
func BenchmarkMiddlewareRefused(b *testing.B) {
	webtest.Refuse(b, "/bench/refused/{id}")
	h := nethttp.Middleware()(benchMux("GET /bench/refused/{id}"))
	webtest.BenchRefused(b, webtest.ServeHTTP(h, "/bench/refused/1"))
}

// BenchmarkEntryExit is a plain runtime.Entry and Exit, in this binary:
// the yardstick the middleware's cost over the mux is read against.
func BenchmarkEntryExit(b *testing.B) { webtest.BenchEntryExit(b) }

// The floor of a middleware whose handlers take an *http.Request: the one
// allocation of the entry with the request copy that carries it, against
// the entry's alone, what a plain Entry allocates.
var (
	entrySink       *runtime.SentinelEntry
	entryAndReqSink *web.EntryAnd[http.Request]
)

func BenchmarkAllocateEntry(b *testing.B) {
	b.ReportAllocs()
	stop := webtest.CPUTimer(b)
	for b.Loop() {
		entrySink = new(runtime.SentinelEntry)
	}
	stop()
}

func BenchmarkAllocateEntryAndRequest(b *testing.B) {
	b.ReportAllocs()
	stop := webtest.CPUTimer(b)
	for b.Loop() {
		entryAndReqSink = new(web.EntryAnd[http.Request])
	}
	stop()
}

// BenchmarkAllocateEntryAndCopyRequest is BenchmarkAllocateEntryAndRequest
// with the request copied in, carrying a context, as an adapter's
// admitted request copies it: the floor with its memory written.
func BenchmarkAllocateEntryAndCopyRequest(b *testing.B) {
	r := httptest.NewRequest("GET", "/bench/copy/1", nil)
	ctx := r.Context()
	b.ReportAllocs()
	stop := webtest.CPUTimer(b)
	for b.Loop() {
		a := new(entryAndRequest)
		a.req = *r.WithContext(ctx)
		requestSink = &a.req
	}
	stop()
}

// entryAndRequest is the layout of web.EntryAnd[http.Request], for the
// floors that write its fields.
type entryAndRequest struct {
	req http.Request
	e   runtime.SentinelEntry
}

// The cost of an admitted request through an Engine, without a router,
// against its floor: what the adapters built on Engine add to a
// framework, less the framework's own handler chain.
var requestSink *http.Request

// BenchmarkEngine is one request through Engine.Enter and Exit.
func BenchmarkEngine(b *testing.B) {
	g := nethttp.NewEngine()
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/bench/engine/1", nil)
	b.ReportAllocs()
	stop := webtest.CPUTimer(b)
	for b.Loop() {
		req, e, ok := g.Enter(w, r, "/bench/engine/{id}")
		if !ok {
			b.Fatal("refused")
		}
		requestSink = req
		g.Exit(req, e, http.StatusOK, nil)
	}
	stop()
}

// BenchmarkEngineFloor is what BenchmarkEngine cannot do without: the
// entry and the request copy in one allocation, the entry entered in the
// shared web context and exited, the copy made with the entry's context.
// Nothing is looked up; the resource and the context are at hand.
func BenchmarkEngineFloor(b *testing.B) {
	res := runtime.Declare(runtime.ResourceSpec{Name: "/bench/engine-floor/{id}", Traffic: runtime.Inbound, Type: runtime.Web})
	sc := runtime.NewSharedContext(web.ContextName, "")
	opts := []runtime.EntryOption{runtime.WithTrafficType(runtime.Inbound), runtime.WithResourceType(runtime.Web)}
	r := httptest.NewRequest("GET", "/bench/engine-floor/1", nil)
	b.ReportAllocs()
	stop := webtest.CPUTimer(b)
	for b.Loop() {
		a := new(entryAndRequest)
		e, blocked := res.EntryInSharedContextAt(&a.e, r.Context(), sc, opts...)
		if blocked != nil {
			b.Fatal(blocked)
		}
		a.req = *r.WithContext(e.Context())
		requestSink = &a.req
		e.Exit()
	}
	stop()
}
