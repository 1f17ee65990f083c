package sentinelgrpc_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/sentinelgrpc"
)

// The dashboards, api/resources and the Java dashboard's metric lines
// classify a resource by its spec: a server method is inbound RPC there,
// as every call to it is, from its first call on. (A service no other
// test calls, so that nothing classified its methods before.)
func TestServerMethodsAreClassifiedInboundRPC(t *testing.T) {
	handClock(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer(
		grpc.ChainUnaryInterceptor(sentinelgrpc.UnaryServerInterceptor()),
		grpc.ChainStreamInterceptor(sentinelgrpc.StreamServerInterceptor()))
	healthpb.RegisterHealthServer(srv, health.NewServer())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	conn, err := grpc.NewClient("passthrough:///"+ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
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
	client := healthpb.NewHealthClient(conn)

	_, err = client.Check(t.Context(), &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	watch, err := client.Watch(ctx, &healthpb.HealthCheckRequest{})
	require.NoError(t, err)
	_, err = watch.Recv() // the handler runs: its entry is open
	require.NoError(t, err)

	for _, method := range []string{"/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"} {
		r := runtime.LookupResource(method)
		require.NotNil(t, r, method)
		assert.Equal(t, runtime.Inbound, r.Spec().Traffic, method)
		assert.Equal(t, runtime.RPC, r.Spec().Type, method)
	}
}
