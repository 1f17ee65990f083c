package redis_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/sentinelgen/sentinelgen/internal/testserver"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/redis"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	// The runtime's cached clock may tick in the background; it is not ours.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"))
}

const (
	waitFor = 10 * time.Second
	tick    = 5 * time.Millisecond
	key     = "sentinel:rules:flow"
	channel = "sentinel:rules:flow:channel"
)

// instance is one application instance: its own rules, client and source.
type instance struct {
	t      *testing.T
	m      *fakerules.Manager
	client *goredis.Client
	src    *redis.Source
}

func newClient(addr string) *goredis.Client {
	return goredis.NewClient(&goredis.Options{Addr: addr, DialTimeout: 500 * time.Millisecond, MaxRetries: -1})
}

// newInstance watches key and channel through addr (the server's address
// or a proxy's), with rules of its own.
func newInstance(t *testing.T, addr string, opts ...redis.Option) *instance {
	t.Helper()
	in := &instance{t: t, m: fakerules.New("flow"), client: newClient(addr)}
	opts = append([]redis.Option{redis.WithTimeout(2 * time.Second), redis.WithRetryInterval(50 * time.Millisecond)}, opts...)
	src, err := redis.Watch(context.Background(), in.client, key, channel, in.m.Kind(), opts...)
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

// publish is what a writer does: SET and PUBLISH in one MULTI.
func publish(t testing.TB, c goredis.UniversalClient, doc string) {
	t.Helper()
	_, err := redis.Publish(context.Background(), c, key, channel, []byte(doc))
	require.NoError(t, err)
}

// writer is a client of the server itself, closed at the test's end.
func writer(t *testing.T, srv *testserver.Redis) *goredis.Client {
	c := newClient(srv.Addr())
	t.Cleanup(func() { _ = c.Close() })
	return c
}
