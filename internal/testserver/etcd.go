package testserver

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// Etcd is a one-member etcd process of the test's own, on loopback ports,
// with its data in a temporary directory that outlives a Kill: a restart
// comes back with every key and revision.
type Etcd struct {
	t          testing.TB
	dir        string
	port, peer int
	cmd        *exec.Cmd
}

// StartEtcd starts etcd on free loopback ports and kills it when the test
// ends.
func StartEtcd(t testing.TB) *Etcd {
	t.Helper()
	_, err := exec.LookPath("etcd")
	require.NoError(t, err, "etcd is required (Debian package etcd-server; see .ci/etcd.sh)")
	s := &Etcd{t: t, dir: t.TempDir(), port: freePort(t), peer: freePort(t)}
	s.Start()
	t.Cleanup(s.Kill)
	return s
}

// Addr is host:port of the client endpoint.
func (s *Etcd) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Start runs etcd (again, after Kill, on the same ports and data) and
// waits until it serves reads.
func (s *Etcd) Start() {
	s.t.Helper()
	client := "http://" + s.Addr()
	peer := "http://127.0.0.1:" + strconv.Itoa(s.peer)
	s.cmd = exec.Command("etcd", "--name", "test", "--data-dir", s.dir,
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "test="+peer, "--logger", "zap", "--log-level", "error")
	require.NoError(s.t, s.cmd.Start())
	c := s.Client(s.t)
	defer c.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		_, err := c.Get(ctx, "/health-probe")
		cancel()
		if err == nil {
			return
		}
		require.True(s.t, time.Now().Before(deadline), "etcd on %s did not answer: %v", s.Addr(), err)
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill ends the server at once (SIGKILL), as a crash would.
func (s *Etcd) Kill() { kill(s.cmd); s.cmd = nil }

// Client is a client of endpoint addr (the server's, or a Proxy's). The
// caller closes it.
func (s *Etcd) Client(t testing.TB, endpoint ...string) *clientv3.Client {
	t.Helper()
	if len(endpoint) == 0 {
		endpoint = []string{s.Addr()}
	}
	c, err := clientv3.New(clientv3.Config{
		Endpoints: endpoint, DialTimeout: 2 * time.Second, Logger: zap.NewNop(),
		DialKeepAliveTime: time.Second, DialKeepAliveTimeout: time.Second,
		// Redial within a fraction of a second once a server is back
		// (gRPC's default backoff grows to two minutes).
		DialOptions: []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, MaxDelay: 250 * time.Millisecond},
			MinConnectTimeout: time.Second,
		})},
	})
	require.NoError(t, err)
	return c
}
