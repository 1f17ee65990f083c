package sentinelgrpc_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc/internal/testsvc"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	// The runtime's cached clock ticks in a goroutine of its own for the
	// life of the process once the default clock is read (benchmarks).
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"))
}

// The full method names of TestService, which name its resources.
const (
	unaryCall  = "/grpc.testing.TestService/UnaryCall"
	outputCall = "/grpc.testing.TestService/StreamingOutputCall"
	inputCall  = "/grpc.testing.TestService/StreamingInputCall"
	duplexCall = "/grpc.testing.TestService/FullDuplexCall"
)

// handClock installs a hand-stepped clock for the test, and clears the
// rules the test loads when it ends.
func handClock(t *testing.T) *clocktest.Clock {
	t.Helper()
	c := clocktest.New()
	t.Cleanup(runtime.SetClock(c))
	t.Cleanup(func() {
		require.NoError(t, flow.LoadRules(nil))
		require.NoError(t, degrade.LoadRules(nil))
		require.NoError(t, paramflow.LoadRules(nil))
	})
	return c
}

// env is a TestService served by grpc-go on a 127.0.0.1 port, and a client
// connected to it over TCP.
type env struct {
	svc    *testsvc.Server
	client testgrpc.TestServiceClient
	addr   string // the server's host:port
}

// serve starts the server with srvOpts and dials it with dialOpts; both stop
// when the test ends.
func serve(t *testing.T, srvOpts []grpc.ServerOption, dialOpts ...grpc.DialOption) *env {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer(srvOpts...)
	svc := &testsvc.Server{}
	testgrpc.RegisterTestServiceServer(srv, svc)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	conn, err := grpc.NewClient("passthrough:///"+ln.Addr().String(),
		append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, dialOpts...)...)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, conn.Close())
		srv.Stop()
		// A server stopped before its goroutine reached Serve (a test that
		// never called it, on a loaded machine) returns ErrServerStopped.
		if err := <-served; !errors.Is(err, grpc.ErrServerStopped) {
			require.NoError(t, err)
		}
	})
	return &env{svc: svc, client: testgrpc.NewTestServiceClient(conn), addr: ln.Addr().String()}
}

// serveProtected serves with all the server interceptors made of opts, and
// a plain client.
func serveProtected(t *testing.T, opts ...sentinelgrpc.ServerOption) *env {
	t.Helper()
	return serve(t, []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(sentinelgrpc.UnaryServerInterceptor(opts...)),
		grpc.ChainStreamInterceptor(sentinelgrpc.StreamServerInterceptor(opts...)),
	})
}

// dialProtected serves plainly, and dials with all the client
// interceptors made of opts.
func dialProtected(t *testing.T, opts ...sentinelgrpc.ClientOption) *env {
	t.Helper()
	return serve(t, nil,
		grpc.WithChainUnaryInterceptor(sentinelgrpc.UnaryClientInterceptor(opts...)),
		grpc.WithChainStreamInterceptor(sentinelgrpc.StreamClientInterceptor(opts...)))
}

// call is what the recorder saw of one admitted call.
type call struct {
	Name, Context, Origin string
	Traffic               runtime.TrafficType
	Type                  runtime.ResourceType
	Args                  []any
	Err                   error // recorded at exit
}

// recorder is a slot at the end of the chain: it sees every admitted
// call's check and exit.
type recorder struct {
	mu     sync.Mutex
	checks []call
	exits  []call
	args   map[string]bool
}

// record registers a recorder for the duration of the test; it asks for
// arguments on the resources in args.
func record(t *testing.T, args ...string) *recorder {
	t.Helper()
	r := &recorder{args: map[string]bool{}}
	for _, a := range args {
		r.args[a] = true
	}
	runtime.RegisterSlot("sentinelgrpc-test-recorder", 0, r)
	t.Cleanup(func() { runtime.UnregisterSlot("sentinelgrpc-test-recorder") })
	return r
}

func (r *recorder) Bind(res *runtime.Resource) runtime.Checker {
	return &recordChecker{r: r, args: r.args[res.Name()]}
}

// seen returns the calls checked and exited of resource name.
func (r *recorder) seen(name string) (checks, exits []call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.checks {
		if c.Name == name {
			checks = append(checks, c)
		}
	}
	for _, c := range r.exits {
		if c.Name == name {
			exits = append(exits, c)
		}
	}
	return checks, exits
}

// waitExits waits until name has n exits: a server's handler returns
// after its client has its answer.
func (r *recorder) waitExits(t *testing.T, name string, n int) []call {
	t.Helper()
	require.Eventually(t, func() bool { _, e := r.seen(name); return len(e) >= n },
		10*time.Second, time.Millisecond, "exits of %s", name)
	_, exits := r.seen(name)
	return exits
}

type recordChecker struct {
	r    *recorder
	args bool
}

func (k *recordChecker) NeedsArgs() bool { return k.args }

func snapshot(c *runtime.Call) call {
	return call{Name: c.Name(), Context: c.ContextName(), Origin: c.Origin(), Traffic: c.Traffic(),
		Type: c.ResourceType(), Args: append([]any(nil), c.Args()...), Err: c.Err()}
}

func (k *recordChecker) Check(c *runtime.Call) *runtime.BlockError {
	k.r.mu.Lock()
	k.r.checks = append(k.r.checks, snapshot(c))
	k.r.mu.Unlock()
	return nil
}

func (k *recordChecker) Exit(c *runtime.Call) {
	if c.BlockError() != nil {
		return
	}
	k.r.mu.Lock()
	k.r.exits = append(k.r.exits, snapshot(c))
	k.r.mu.Unlock()
}

// unary calls UnaryCall with body, asking the server to answer with code.
func (e *env) unary(ctx context.Context, body string, code int32) (*testgrpc.SimpleResponse, error) {
	return e.client.UnaryCall(ctx, &testgrpc.SimpleRequest{
		Payload:        &testgrpc.Payload{Body: []byte(body)},
		ResponseStatus: &testgrpc.EchoStatus{Code: code},
	})
}
