package sentinelgrpc_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc"
)

// echoServer answers UnaryCall with an empty response: the benchmark
// measures the call, not a handler.
type echoServer struct {
	testgrpc.UnimplementedTestServiceServer
}

func (echoServer) UnaryCall(context.Context, *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	return &testgrpc.SimpleResponse{}, nil
}

// BenchmarkUnaryLoopback is a unary call over a TCP loopback connection to
// a grpc-go server, without any interceptor ("bare"), with one that does
// nothing, and with the Sentinel server interceptor (one admitting QPS rule
// on the method), in the same run: the differences are grpc-go's cost of
// having an interceptor, and this one's.
func BenchmarkUnaryLoopback(b *testing.B) {
	require := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	require(flow.LoadRules([]flow.Rule{{Resource: unaryCall, Grade: flow.GradeQPS, Count: 1e12}}))
	b.Cleanup(func() { _ = flow.LoadRules(nil) })

	for _, bc := range []struct {
		name string
		opts []grpc.ServerOption
	}{
		{"bare", nil},
		// grpc-go's generated code allocates the UnaryServerInfo and the
		// handler closure whenever a server has an interceptor.
		{"noop-interceptor", []grpc.ServerOption{grpc.ChainUnaryInterceptor(
			func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
				return h(ctx, req)
			})}},
		{"interceptor", []grpc.ServerOption{grpc.ChainUnaryInterceptor(sentinelgrpc.UnaryServerInterceptor())}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			client := benchClient(b, bc.opts)
			req := &testgrpc.SimpleRequest{}
			ctx := context.Background()
			_, err := client.UnaryCall(ctx, req) // connect
			require(err)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := client.UnaryCall(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// originCases are the server interceptor benchmarks' cases: without and
// with an origin parsed from the call.
var originCases = []struct {
	name string
	opts []sentinelgrpc.ServerOption
}{
	{"no-origin", nil},
	{"origin", []sentinelgrpc.ServerOption{sentinelgrpc.WithOriginParser(benchOrigin)}},
}

// BenchmarkUnaryServerInterceptor is the server interceptor alone around a
// handler that does nothing: what it adds to every admitted call, without
// and with an origin.
func BenchmarkUnaryServerInterceptor(b *testing.B) {
	for _, bc := range originCases {
		b.Run(bc.name, func(b *testing.B) {
			method := "/bench.Service/Call-" + bc.name
			benchRule(b, method)
			intercept := sentinelgrpc.UnaryServerInterceptor(bc.opts...)
			info := &grpc.UnaryServerInfo{FullMethod: method}
			handler := func(ctx context.Context, req any) (any, error) { return req, nil }
			ctx := context.Background()
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				if _, err := intercept(ctx, nil, info, handler); err != nil {
					b.Fatal(err)
				}
			}
			stop()
		})
	}
}

// BenchmarkStreamServerInterceptor is the stream server interceptor alone
// around a handler that reads its stream's context: what it adds to every
// admitted stream, without and with an origin.
func BenchmarkStreamServerInterceptor(b *testing.B) {
	for _, bc := range originCases {
		b.Run(bc.name, func(b *testing.B) {
			method := "/bench.Service/Stream-" + bc.name
			benchRule(b, method)
			intercept := sentinelgrpc.StreamServerInterceptor(bc.opts...)
			info := &grpc.StreamServerInfo{FullMethod: method, IsServerStream: true}
			handler := func(_ any, ss grpc.ServerStream) error {
				if ss.Context() == nil {
					return errors.New("no context")
				}
				return nil
			}
			var ss grpc.ServerStream = benchStream{}
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				if err := intercept(nil, ss, info, handler); err != nil {
					b.Fatal(err)
				}
			}
			stop()
		})
	}
}

// benchOrigin is an origin parser that finds the same caller every time.
func benchOrigin(context.Context, string) string { return "bench-caller" }

// benchRule loads one admitting QPS rule on method for the benchmark.
func benchRule(b *testing.B, method string) {
	if err := flow.LoadRules([]flow.Rule{{Resource: method, Grade: flow.GradeQPS, Count: 1e12}}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = flow.LoadRules(nil) })
}

// benchStream is a server stream that carries the background context and
// does nothing else.
type benchStream struct{ grpc.ServerStream }

func (benchStream) Context() context.Context { return context.Background() }

// benchClient serves echoServer with opts on a 127.0.0.1 port and returns a
// client connected to it; both stop when the benchmark ends.
func benchClient(b *testing.B, opts []grpc.ServerOption) testgrpc.TestServiceClient {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := grpc.NewServer(opts...)
	testgrpc.RegisterTestServiceServer(srv, echoServer{})
	go func() { _ = srv.Serve(ln) }()
	conn, err := grpc.NewClient("passthrough:///"+ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = conn.Close()
		srv.Stop()
	})
	return testgrpc.NewTestServiceClient(conn)
}

// BenchmarkUnaryServerInterceptorRefused is the server interceptor alone
// refusing every call (a flow rule of count 0), with grpc-go's reading of
// the status it sends: what a refusal costs, to be read against
// BenchmarkUnaryServerInterceptor.
func BenchmarkUnaryServerInterceptorRefused(b *testing.B) {
	for _, bc := range originCases {
		b.Run(bc.name, func(b *testing.B) {
			method := "/bench.Service/Refused-" + bc.name
			if err := flow.LoadRules([]flow.Rule{{Resource: method, Grade: flow.GradeQPS, Count: 0}}); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = flow.LoadRules(nil) })
			intercept := sentinelgrpc.UnaryServerInterceptor(bc.opts...)
			info := &grpc.UnaryServerInfo{FullMethod: method}
			handler := func(ctx context.Context, req any) (any, error) { return req, nil }
			ctx := context.Background()
			b.ReportAllocs()
			stop := webtest.CPUTimer(b)
			for b.Loop() {
				_, err := intercept(ctx, nil, info, handler)
				if status.Code(err) != codes.ResourceExhausted {
					b.Fatal(err)
				}
			}
			stop()
		})
	}
}

// BenchmarkUnaryLoopbackRefused is BenchmarkUnaryLoopback's interceptor
// case with a rule that refuses every call: the whole call, the status
// with its ErrorInfo detail sent and read by the client.
func BenchmarkUnaryLoopbackRefused(b *testing.B) {
	if err := flow.LoadRules([]flow.Rule{{Resource: unaryCall, Grade: flow.GradeQPS, Count: 0}}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = flow.LoadRules(nil) })
	client := benchClient(b, []grpc.ServerOption{grpc.ChainUnaryInterceptor(sentinelgrpc.UnaryServerInterceptor())})
	req := &testgrpc.SimpleRequest{}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := client.UnaryCall(ctx, req); status.Code(err) != codes.ResourceExhausted {
			b.Fatal(err)
		}
	}
}

// BenchmarkEntryExit is a plain runtime.Entry and Exit, in this binary:
// the yardstick the interceptors' cost is read against.
func BenchmarkEntryExit(b *testing.B) { webtest.BenchEntryExit(b) }

// BenchmarkEntryExitFlowRule is a plain runtime.Entry and Exit of a
// resource with one admitting QPS rule, the rule the interceptor
// benchmarks load on their method: the like-for-like yardstick of
// BenchmarkUnaryServerInterceptor and BenchmarkStreamServerInterceptor.
func BenchmarkEntryExitFlowRule(b *testing.B) {
	benchRule(b, "bench-entry-exit")
	webtest.BenchEntryExit(b)
}
