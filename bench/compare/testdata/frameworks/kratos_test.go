package compare

import (
	"context"
	"testing"

	"github.com/go-kratos/kratos/v2/middleware"
	"github.com/go-kratos/kratos/v2/transport"

	sentinelkratos "github.com/sentinelgen/sentinelgen/adapters/kratos"
)

const kratosOperation = "/api.order.v1.Order/GetOrder"

// The client and server middleware: sentinel-golang's Kratos adapter has
// no server side.
var (
	kratosAdapters       = []adapter[middleware.Middleware]{{impl: "ours", middleware: func() middleware.Middleware { return sentinelkratos.Client() }, resource: kratosOperation}}
	kratosServerAdapters = []adapter[middleware.Middleware]{{impl: "ours", middleware: func() middleware.Middleware { return sentinelkratos.Server() }, resource: kratosOperation}}
)

// kratosTransport is the transport a Kratos client or server puts in each
// call's context.
type kratosTransport struct{ header kratosHeader }

func (kratosTransport) Kind() transport.Kind              { return transport.KindGRPC }
func (kratosTransport) Endpoint() string                  { return "grpc://127.0.0.1:9000" }
func (kratosTransport) Operation() string                 { return kratosOperation }
func (t kratosTransport) RequestHeader() transport.Header { return t.header }
func (t kratosTransport) ReplyHeader() transport.Header   { return t.header }

type kratosHeader map[string][]string

func (h kratosHeader) Get(key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
func (h kratosHeader) Set(key, value string)      { h[key] = []string{value} }
func (h kratosHeader) Add(key, value string)      { h[key] = append(h[key], value) }
func (h kratosHeader) Keys() []string             { return nil }
func (h kratosHeader) Values(key string) []string { return h[key] }

// BenchmarkKratosClient is a client middleware around the call's handler,
// called in a client call's context.
func BenchmarkKratosClient(b *testing.B) {
	benchKratos(b, transport.NewClientContext(context.Background(), kratosTransport{kratosHeader{}}), kratosAdapters)
}

// BenchmarkKratosServer is a server middleware around a handler, called in
// a server call's context.
func BenchmarkKratosServer(b *testing.B) {
	benchKratos(b, transport.NewServerContext(context.Background(), kratosTransport{kratosHeader{}}), kratosServerAdapters)
}

func benchKratos(b *testing.B, ctx context.Context, adapters []adapter[middleware.Middleware]) {
	call := func(ctx context.Context, req any) (any, error) { return req, nil }
	serve := func(mw middleware.Middleware) func() int {
		h := mw(call)
		return func() int {
			if _, err := h(ctx, "req"); err != nil {
				return rpcError
			}
			return rpcOK
		}
	}
	noop := func(next middleware.Handler) middleware.Handler {
		return func(ctx context.Context, req any) (any, error) { return next(ctx, req) }
	}
	benchFramework(b, serve, noop, rpcOK, rpcError, adapters)
}
