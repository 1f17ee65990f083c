package etcd_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/goleak"

	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/etcd"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	// The runtime's cached clock may tick in the background; it is not ours.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"))
}

const (
	waitFor = 10 * time.Second
	tick    = 5 * time.Millisecond
	key     = "/sentinel/rules/flow"
)

// instance is one application instance: its own rules, client and source.
type instance struct {
	t      *testing.T
	m      *fakerules.Manager
	client *clientv3.Client
	src    *etcd.Source
}

// newInstance watches key through endpoint (the server's address or a
// proxy's), with rules of its own.
func newInstance(t *testing.T, srv *testserver.Etcd, endpoint string, opts ...etcd.Option) *instance {
	t.Helper()
	in := &instance{t: t, m: fakerules.New("flow"), client: srv.Client(t, endpoint)}
	opts = append([]etcd.Option{etcd.WithTimeout(2 * time.Second), etcd.WithRetryInterval(50 * time.Millisecond)}, opts...)
	src, err := etcd.Watch(context.Background(), in.client, key, in.m.Kind(), opts...)
	require.NoError(t, err)
	in.src = src
	t.Cleanup(func() {
		require.NoError(t, src.Close())
		require.NoError(t, in.client.Close())
	})
	return in
}

// eventuallyInForce waits until the instance's rules in force are names.
func (in *instance) eventuallyInForce(names ...string) {
	in.t.Helper()
	require.Eventually(in.t, func() bool { return slices.Equal(in.m.Resources(), names) }, waitFor, tick,
		"rules in force: %v, want %v (last error %v)", in.m.Resources(), names, in.src.LastError())
}

func put(t testing.TB, c *clientv3.Client, key, value string) int64 {
	t.Helper()
	resp, err := c.Put(context.Background(), key, value)
	require.NoError(t, err)
	return resp.Header.Revision
}

var _ datasource.Kind = fakerules.New("x").Kind()
