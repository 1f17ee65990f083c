package testserver

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

// Redis is a redis-server process of the test's own, on a loopback port,
// without persistence: a restart starts empty, as a crashed cache does.
type Redis struct {
	t    testing.TB
	port int
	cmd  *exec.Cmd
	args []string // more redis-server arguments (cluster mode, replicaof)
	// pick chooses another port when the first one was taken between
	// choosing it and binding it (tests in other packages pick ports
	// too); nil keeps the port. A restart keeps its port whatever.
	pick    func(testing.TB) int
	started bool
}

// StartRedis starts redis-server on a free loopback port and kills it when
// the test ends.
func StartRedis(t testing.TB) *Redis {
	t.Helper()
	_, err := exec.LookPath("redis-server")
	require.NoError(t, err, "redis-server is required (Debian package redis-server; see .ci/redis.sh)")
	s := &Redis{t: t, port: freePort(t), pick: freePort}
	s.Start()
	t.Cleanup(s.Kill)
	return s
}

// Addr is host:port.
func (s *Redis) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Start runs redis-server on the server's port (again, after Kill) and
// waits until it answers PING.
func (s *Redis) Start() {
	s.t.Helper()
	for attempt := 0; ; attempt++ {
		if s.start() {
			s.started = true
			return
		}
		// Another process's server answered on the port: ours could not
		// bind it.
		kill(s.cmd)
		require.True(s.t, !s.started && s.pick != nil && attempt < 5, "port %d is another process's", s.port)
		s.port = s.pick(s.t)
	}
}

// start starts redis-server and waits for it; false when the server that
// answers on the port is not the one started.
func (s *Redis) start() bool {
	// --dir: a server of the test's own reads no dump.rdb left in the
	// package's folder, and a replica's full sync writes none there.
	s.cmd = exec.Command("redis-server", append([]string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "no", "--dir", s.t.TempDir()}, s.args...)...)
	require.NoError(s.t, s.cmd.Start())
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		info, err := rdb.Info(ctx, "server").Result()
		cancel()
		if err == nil {
			return strings.Contains(info, "process_id:"+strconv.Itoa(s.cmd.Process.Pid)+"\r\n")
		}
		require.True(s.t, time.Now().Before(deadline), "redis-server on %s did not answer: %v", s.Addr(), err)
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill ends the server at once (SIGKILL), as a crash would.
func (s *Redis) Kill() { kill(s.cmd); s.cmd = nil }

// Pause and Resume freeze and thaw the server (SIGSTOP, SIGCONT): a Redis
// that accepts connections but never answers.
func (s *Redis) Pause()  { require.NoError(s.t, s.cmd.Process.Signal(syscall.SIGSTOP)) }
func (s *Redis) Resume() { require.NoError(s.t, s.cmd.Process.Signal(syscall.SIGCONT)) }

// Client is a go-redis client for the test's own writes and inspection,
// closed when the test ends.
func (s *Redis) Client(t testing.TB) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

func kill(cmd *exec.Cmd) {
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGCONT) // a stopped process cannot be reaped otherwise
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

// CommandCalls is Redis's INFO commandstats through rdb: calls per
// command, those that scripts make included.
func CommandCalls(t testing.TB, rdb *redis.Client) map[string]int64 {
	t.Helper()
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
