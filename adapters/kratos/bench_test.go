package sentinelkratos_test

import (
	"context"
	"testing"

	"github.com/go-kratos/kratos/v2/middleware"
	"github.com/go-kratos/kratos/v2/transport"

	sentinelkratos "github.com/sentinelgen/sentinelgen/adapters/kratos"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
)

// benchTransport is the server transport a Kratos server puts in each
// call's context.
type benchTransport struct{ header headerCarrier }

func (benchTransport) Kind() transport.Kind              { return transport.KindGRPC }
func (benchTransport) Endpoint() string                  { return "grpc://127.0.0.1:9000" }
func (benchTransport) Operation() string                 { return "/api.order.v1.Order/GetOrder" }
func (t benchTransport) RequestHeader() transport.Header { return t.header }
func (t benchTransport) ReplyHeader() transport.Header   { return t.header }

type headerCarrier map[string][]string

func (h headerCarrier) Get(key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
func (h headerCarrier) Set(key, value string)      { h[key] = []string{value} }
func (h headerCarrier) Add(key, value string)      { h[key] = append(h[key], value) }
func (h headerCarrier) Keys() []string             { return nil }
func (h headerCarrier) Values(key string) []string { return h[key] }

// A handler called bare, through a middleware that does nothing and
// through the adapter, in a server call's context: the adapter's cost is
// the difference between the last two.
func BenchmarkKratos(b *testing.B) {
	handler := func(ctx context.Context, req any) (any, error) { return req, nil }
	for _, bc := range []struct {
		name string
		mw   []middleware.Middleware
	}{
		{"bare", nil},
		{"noop", []middleware.Middleware{func(next middleware.Handler) middleware.Handler { return next }}},
		{"sentinelkratos", []middleware.Middleware{sentinelkratos.Server()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := middleware.Chain(bc.mw...)(handler)
			ctx := transport.NewServerContext(context.Background(), benchTransport{headerCarrier{}})
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				if _, err := h(ctx, "req"); err != nil {
					b.Fatal(err)
				}
			}
			stop()
		})
	}
}

// BenchmarkEntryExit is a plain runtime.Entry and Exit, in this binary:
// the yardstick the adapter's cost over the framework is read against.
func BenchmarkEntryExit(b *testing.B) { webtest.BenchEntryExit(b) }

// BenchmarkKratosRefused is BenchmarkKratos's adapter case with a flow
// rule that refuses every call.
func BenchmarkKratosRefused(b *testing.B) {
	webtest.Refuse(b, benchTransport{}.Operation())
	h := sentinelkratos.Server()(func(ctx context.Context, req any) (any, error) { return req, nil })
	ctx := transport.NewServerContext(context.Background(), benchTransport{headerCarrier{}})
	if _, err := h(ctx, "req"); err == nil {
		b.Fatal("admitted")
	}
	b.ReportAllocs()
	stop := webtest.CPUTimer(b)
	for b.Loop() {
		_, _ = h(ctx, "req")
	}
	stop()
}
