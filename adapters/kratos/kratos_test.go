package sentinelkratos_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-kratos/kratos/v2/errors"
	"github.com/go-kratos/kratos/v2/log"
	"github.com/go-kratos/kratos/v2/middleware"
	"github.com/go-kratos/kratos/v2/middleware/recovery"
	kgrpc "github.com/go-kratos/kratos/v2/transport/grpc"
	khttp "github.com/go-kratos/kratos/v2/transport/http"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	sentinelkratos "github.com/sentinelgen/sentinelgen/adapters/kratos"
	"github.com/sentinelgen/sentinelgen/internal/webtest"
	"github.com/sentinelgen/sentinelgen/internal/webtest/orders"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// The operations the tests serve: GetOrder on HTTP, the gRPC testing
// service's UnaryCall on gRPC.
const (
	getOrder  = "/api.order.v1.Order/GetOrder"
	unaryCall = "/grpc.testing.TestService/UnaryCall"
)

func TestMain(m *testing.M) {
	log.SetLogger(log.NewStdLogger(io.Discard))
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	m.Run()
}

// calls counts the calls that reached a handler.
var calls atomic.Int64

// behave is both servers' handler for id: "fail" is a 500, "bad" a 400,
// "panic" panics, "hang" waits for the call's context to end, "nest" calls
// a generated wrapper with the handler's context; anything else answers.
func behave(ctx context.Context, id string) (string, error) {
	calls.Add(1)
	switch id {
	case "fail":
		return "", errors.New(500, "FAILED", "failed")
	case "bad":
		return "", errors.New(400, "BAD", "the caller's mistake")
	case "panic":
		panic("kratos test: handler panicked")
	case "hang":
		<-ctx.Done()
		return "", errors.New(502, "UPSTREAM", "my upstream call was canceled")
	case "nest":
		return orders.Lookup(ctx, id)
	}
	return "order " + id, nil
}

// serveHTTP starts a Kratos HTTP server on 127.0.0.1 serving GetOrder at
// /api/order/{id}, behind recovery and the adapter, until t ends.
func serveHTTP(t *testing.T, opts ...sentinelkratos.Option) string {
	t.Helper()
	return httpServer(t, recovery.Recovery(), sentinelkratos.Server(opts...))
}

// httpServer serves GetOrder at /api/order/{id} behind mws until t ends.
func httpServer(t *testing.T, mws ...middleware.Middleware) string {
	t.Helper()
	srv := khttp.NewServer(khttp.Address("127.0.0.1:0"), khttp.Middleware(mws...))
	srv.Route("/").GET("/api/order/{id}", func(ctx khttp.Context) error {
		khttp.SetOperation(ctx, getOrder)
		h := ctx.Middleware(func(c context.Context, _ any) (any, error) {
			body, err := behave(c, ctx.Vars().Get("id"))
			return map[string]string{"order": body}, err
		})
		out, err := h(ctx, nil)
		if err != nil {
			return err
		}
		return ctx.Result(http.StatusOK, out)
	})
	return start(t, srv, func() (string, error) {
		u, err := srv.Endpoint()
		if err != nil {
			return "", err
		}
		return u.Host, nil
	})
}

type testService struct {
	testgrpc.UnimplementedTestServiceServer
}

func (testService) UnaryCall(ctx context.Context, req *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	body, err := behave(ctx, string(req.GetPayload().GetBody()))
	if err != nil {
		return nil, err
	}
	return &testgrpc.SimpleResponse{Payload: &testgrpc.Payload{Body: []byte(body)}}, nil
}

// serveGRPC starts a Kratos gRPC server on 127.0.0.1 serving the gRPC
// testing service, behind recovery and the adapter, until t ends.
func serveGRPC(t *testing.T, opts ...sentinelkratos.Option) string {
	t.Helper()
	srv := kgrpc.NewServer(kgrpc.Address("127.0.0.1:0"), kgrpc.Middleware(recovery.Recovery(), sentinelkratos.Server(opts...)))
	testgrpc.RegisterTestServiceServer(srv, testService{})
	return start(t, srv, func() (string, error) {
		u, err := srv.Endpoint()
		if err != nil {
			return "", err
		}
		return u.Host, nil
	})
}

type server interface {
	Start(context.Context) error
	Stop(context.Context) error
}

func start(t *testing.T, srv server, endpoint func() (string, error)) string {
	t.Helper()
	addr, err := endpoint() // listens
	require.NoError(t, err)
	go func() { _ = srv.Start(context.Background()) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Stop(ctx)
	})
	return addr
}

// grpcClient dials addr with Kratos's gRPC client, with client middleware
// mws: a client protected by the adapter in the same process as the server
// counts each call twice, on the same operation's resource.
func grpcClient(t *testing.T, addr string, mws ...middleware.Middleware) testgrpc.TestServiceClient {
	t.Helper()
	conn, err := kgrpc.DialInsecure(t.Context(), kgrpc.WithEndpoint(addr), kgrpc.WithMiddleware(mws...))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return testgrpc.NewTestServiceClient(conn)
}

func unary(ctx context.Context, c testgrpc.TestServiceClient, id string) error {
	_, err := c.UnaryCall(ctx, &testgrpc.SimpleRequest{Payload: &testgrpc.Payload{Body: []byte(id)}})
	return err
}

func loadFlow(t *testing.T, resource string, count float64) {
	t.Helper()
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: resource, Grade: flow.GradeQPS, Count: count}}))
	t.Cleanup(func() { require.NoError(t, flow.LoadRules(nil)) })
}

func loadBreaker(t *testing.T, resource string) {
	t.Helper()
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: resource, Grade: degrade.ErrorCount,
		Count: 2, MinRequestAmount: 1, TimeWindow: 60, StatIntervalMs: 60000}}))
	t.Cleanup(func() { require.NoError(t, degrade.LoadRules(nil)) })
}

func TestARefusalOnHTTPIsA429ThatNeverReachesTheHandler(t *testing.T) {
	clocktest.Install(t)
	addr := serveHTTP(t)
	loadFlow(t, getOrder, 1)
	resp := get(t, "http://"+addr+"/api/order/1")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	before := calls.Load()
	resp = get(t, "http://"+addr+"/api/order/2")
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, before, calls.Load(), "the handler was not reached")
}

func TestARefusalOnGRPCIsResourceExhaustedWithCode429(t *testing.T) {
	clocktest.Install(t)
	c := grpcClient(t, serveGRPC(t))
	loadFlow(t, unaryCall, 0)
	before := calls.Load()
	err := unary(t.Context(), c, "1")
	assert.Equal(t, codes.ResourceExhausted, status.Code(err))
	assert.Equal(t, 429, errors.Code(err))
	assert.Equal(t, sentinelkratos.BlockReason, errors.Reason(err))
	assert.Equal(t, "flow", errors.FromError(err).Metadata["blockType"])
	assert.Equal(t, before, calls.Load(), "the handler was not reached")
}

func TestAClientRefusalNeverReachesTheServer(t *testing.T) {
	clocktest.Install(t)
	client := grpcClient(t, serveGRPC(t), sentinelkratos.Client())
	loadFlow(t, unaryCall, 0)
	before := calls.Load()
	err := unary(t.Context(), client, "1")
	assert.Equal(t, 429, errors.Code(err))
	assert.ErrorIs(t, err, runtime.ErrBlocked)
	assert.Equal(t, before, calls.Load(), "the server was not reached")
	outbound := runtime.LookupResource(unaryCall)
	require.NotNil(t, outbound)
}

// unprotectedHTTP serves GetOrder on Kratos's HTTP transport without the
// adapter, so that what a client test sees is its own middleware's doing.
func unprotectedHTTP(t *testing.T) string {
	t.Helper()
	return httpServer(t, recovery.Recovery())
}

func httpClient(t *testing.T, addr string) *khttp.Client {
	t.Helper()
	client, err := khttp.NewClient(t.Context(), khttp.WithEndpoint(addr), khttp.WithMiddleware(sentinelkratos.Client()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	return client
}

func TestAKratosHTTPClientRefusalNeverReachesTheServer(t *testing.T) {
	clocktest.Install(t)
	client := httpClient(t, unprotectedHTTP(t))
	var reply map[string]string
	require.NoError(t, client.Invoke(t.Context(), http.MethodGet, "/api/order/7", nil, &reply, khttp.Operation(getOrder)))
	assert.Equal(t, "order 7", reply["order"])

	loadFlow(t, getOrder, 0)
	before := calls.Load()
	err := client.Invoke(t.Context(), http.MethodGet, "/api/order/8", nil, &reply, khttp.Operation(getOrder))
	assert.Equal(t, 429, errors.Code(err))
	assert.ErrorIs(t, err, runtime.ErrBlocked, "refused by the client, not answered by the server")
	assert.Equal(t, before, calls.Load(), "the server was not reached")
}

func TestTheClientsBreakerOpensOnServerErrors(t *testing.T) {
	clk := clocktest.Install(t)
	client := httpClient(t, unprotectedHTTP(t))
	loadBreaker(t, getOrder)
	var reply map[string]string
	for range 3 {
		err := client.Invoke(t.Context(), http.MethodGet, "/api/order/bad", nil, &reply, khttp.Operation(getOrder))
		assert.Equal(t, 400, errors.Code(err), "the caller's mistake is not the server's error")
	}
	for range 3 {
		err := client.Invoke(t.Context(), http.MethodGet, "/api/order/fail", nil, &reply, khttp.Operation(getOrder))
		assert.Equal(t, 500, errors.Code(err))
	}
	assert.Equal(t, 3.0, runtime.LookupResource(getOrder).ClusterNode().ExceptionQPS(clk.Millis()))
	before := calls.Load()
	err := client.Invoke(t.Context(), http.MethodGet, "/api/order/1", nil, &reply, khttp.Operation(getOrder))
	assert.ErrorIs(t, err, runtime.ErrBlocked, "open")
	assert.Equal(t, before, calls.Load())
}

func TestServerErrorsAndPanicsOpenTheBreaker(t *testing.T) {
	for _, id := range []string{"fail", "panic"} {
		t.Run("http "+id, func(t *testing.T) {
			clk := clocktest.Install(t)
			addr := serveHTTP(t)
			loadBreaker(t, getOrder)
			for range 3 {
				assert.Equal(t, http.StatusInternalServerError, get(t, "http://"+addr+"/api/order/"+id).StatusCode)
			}
			assert.Equal(t, 3.0, runtime.LookupResource(getOrder).ClusterNode().ExceptionQPS(clk.Millis()))
			assert.Equal(t, http.StatusTooManyRequests, get(t, "http://"+addr+"/api/order/1").StatusCode, "open")
		})
		t.Run("grpc "+id, func(t *testing.T) {
			clk := clocktest.Install(t)
			c := grpcClient(t, serveGRPC(t))
			loadBreaker(t, unaryCall)
			for range 3 {
				assert.Equal(t, 500, errors.Code(unary(t.Context(), c, id)))
			}
			assert.Equal(t, 3.0, runtime.LookupResource(unaryCall).ClusterNode().ExceptionQPS(clk.Millis()))
			assert.Equal(t, codes.ResourceExhausted, status.Code(unary(t.Context(), c, "1")), "open")
		})
	}
}

func TestClientErrorsAndHangUpsAreNotErrors(t *testing.T) {
	clk := clocktest.Install(t)
	addr := serveGRPC(t)
	c := grpcClient(t, addr)
	loadBreaker(t, unaryCall)
	for range 3 {
		assert.Equal(t, 400, errors.Code(unary(t.Context(), c, "bad")))
	}
	for range 3 {
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		assert.Error(t, unary(ctx, c, "hang"))
		cancel()
	}
	res := runtime.LookupResource(unaryCall)
	require.Eventually(t, func() bool { return res.ClusterNode().Threads() == 0 }, 10*time.Second, time.Millisecond)
	assert.Zero(t, res.ClusterNode().ExceptionQPS(clk.Millis()))
	assert.NoError(t, unary(t.Context(), c, "1"), "the breaker stays closed")
}

func TestTheOriginComesFromMetadataOrAHeader(t *testing.T) {
	clocktest.Install(t)
	c := grpcClient(t, serveGRPC(t, sentinelkratos.WithOriginParser(sentinelkratos.OriginFromHeader("S-User"))))
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: unaryCall, LimitApp: "billing", Grade: flow.GradeQPS, Count: 0}}))
	t.Cleanup(func() { require.NoError(t, flow.LoadRules(nil)) })
	ctx := metadataContext(t.Context(), "s-user", "billing")
	assert.Equal(t, codes.ResourceExhausted, status.Code(unary(ctx, c, "1")), "billing is limited")
	assert.NoError(t, unary(metadataContext(t.Context(), "s-user", "shipping"), c, "1"), "shipping is not")
}

func TestAGeneratedWrapperNestsUnderTheOperation(t *testing.T) {
	clocktest.Install(t)
	c := grpcClient(t, serveGRPC(t))
	require.NoError(t, unary(t.Context(), c, "nest"))
	webtest.AssertNestsUnder(t, unaryCall, orders.LookupResource)
}

func get(t *testing.T, url string) *http.Response {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	return resp
}
