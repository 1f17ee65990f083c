package cluster_test

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// redisServer is a redis-server process of the test's own, on a loopback
// port, without persistence.
type redisServer struct {
	t    testing.TB
	port int
	cmd  *exec.Cmd
}

// startRedis starts redis-server on a free loopback port and stops it when
// the test ends. A missing redis-server fails the test: run .ci/redis.sh.
func startRedis(t testing.TB) *redisServer {
	t.Helper()
	_, err := exec.LookPath("redis-server")
	require.NoError(t, err, "redis-server is required (Debian package redis-server; see .ci/redis.sh)")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	s := &redisServer{t: t, port: port}
	s.start()
	t.Cleanup(s.kill)
	return s
}

func (s *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// start runs redis-server on s's port and waits until it answers PING.
func (s *redisServer) start() {
	s.t.Helper()
	s.cmd = exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "no")
	require.NoError(s.t, s.cmd.Start())
	rdb := redis.NewClient(&redis.Options{Addr: s.addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	defer rdb.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		require.True(s.t, time.Now().Before(deadline), "redis-server on %s did not answer: %v", s.addr(), err)
		time.Sleep(20 * time.Millisecond)
	}
}

// kill ends the server at once (SIGKILL), as a crash would.
func (s *redisServer) kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // a stopped process cannot be reaped otherwise
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// pause and resume freeze and thaw the server: a Redis that accepts
// connections but never answers.
func (s *redisServer) pause()  { require.NoError(s.t, s.cmd.Process.Signal(syscall.SIGSTOP)) }
func (s *redisServer) resume() { require.NoError(s.t, s.cmd.Process.Signal(syscall.SIGCONT)) }

// client is a plain go-redis client for the test's own inspection.
func (s *redisServer) client(t *testing.T) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: s.addr(), Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// commandCalls is Redis's INFO commandstats: calls per command, those
// that scripts make included.
func (s *redisServer) commandCalls(t *testing.T, rdb *redis.Client) map[string]int64 {
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	calls := map[string]int64{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "cmdstat_"), ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		v, err := strconv.ParseInt(n, 10, 64)
		require.NoError(t, err)
		calls[name] = v
	}
	return calls
}
