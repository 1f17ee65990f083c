package testserver

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// RedisCluster is a Redis Cluster of the test's own: masters redis-server
// processes with cluster mode on, joined by redis-cli --cluster create,
// killed when the test ends.
type RedisCluster struct {
	Nodes []*Redis
}

// StartRedisCluster starts a cluster of n masters (no replicas) on free
// loopback ports and waits until it serves every slot.
func StartRedisCluster(t testing.TB, n int) *RedisCluster {
	t.Helper()
	_, err := exec.LookPath("redis-cli")
	require.NoError(t, err, "redis-cli is required (Debian package redis-tools; see .ci/redis.sh)")
	dir := t.TempDir()
	rc := &RedisCluster{}
	addrs := make([]string, n)
	for i := range n {
		port := clusterPort(t)
		s := &Redis{t: t, port: port, pick: clusterPort, args: []string{"--cluster-enabled", "yes",
			"--cluster-config-file", dir + "/nodes-" + strconv.Itoa(port) + ".conf", "--cluster-node-timeout", "2000"}}
		s.Start()
		t.Cleanup(s.Kill)
		rc.Nodes = append(rc.Nodes, s)
		addrs[i] = s.Addr()
	}
	out, err := exec.Command("redis-cli", append(append([]string{"--cluster", "create"}, addrs...), "--cluster-yes")...).CombinedOutput()
	require.NoError(t, err, "redis-cli --cluster create: %s", out)
	deadline := time.Now().Add(20 * time.Second)
	for _, s := range rc.Nodes {
		rdb := s.Client(t)
		for {
			info, err := rdb.ClusterInfo(context.Background()).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			require.True(t, time.Now().Before(deadline), "cluster on %v did not become ok: %v %s", addrs, err, info)
			time.Sleep(50 * time.Millisecond)
		}
	}
	return rc
}

// Addrs are the nodes' host:port.
func (rc *RedisCluster) Addrs() []string {
	out := make([]string, len(rc.Nodes))
	for i, s := range rc.Nodes {
		out[i] = s.Addr()
	}
	return out
}

// clusterPort is a free port whose cluster bus port (port + 10000) is
// free too.
func clusterPort(t testing.TB) int {
	for range 100 {
		p := freePort(t)
		if p+10000 > 65535 {
			continue
		}
		if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p+10000))); err == nil {
			_ = l.Close()
			return p
		}
	}
	t.Fatal("no free port pair for a cluster node")
	return 0
}

// RedisSentinel is a master, one replica and one Sentinel watching them
// as "mymaster" (quorum 1, down after 1 s), of the test's own.
type RedisSentinel struct {
	Master, Replica *Redis
	sentinelPort    int
	cmd             *exec.Cmd
}

// StartRedisSentinel starts the three and waits until the Sentinel knows
// the replica, so a failover can promote it.
func StartRedisSentinel(t testing.TB) *RedisSentinel {
	t.Helper()
	rs := &RedisSentinel{Master: StartRedis(t)}
	rs.Replica = &Redis{t: t, port: freePort(t), pick: freePort, args: []string{"--replicaof", "127.0.0.1", strconv.Itoa(rs.Master.port)}}
	rs.Replica.Start()
	t.Cleanup(rs.Replica.Kill)
	rs.sentinelPort = freePort(t)
	conf := t.TempDir() + "/sentinel.conf"
	require.NoError(t, os.WriteFile(conf, []byte("port "+strconv.Itoa(rs.sentinelPort)+"\nbind 127.0.0.1\nprotected-mode no\n"+
		"sentinel monitor mymaster 127.0.0.1 "+strconv.Itoa(rs.Master.port)+" 1\n"+
		"sentinel down-after-milliseconds mymaster 1000\nsentinel failover-timeout mymaster 3000\n"), 0o600))
	rs.cmd = exec.Command("redis-server", conf, "--sentinel")
	require.NoError(t, rs.cmd.Start())
	t.Cleanup(func() { kill(rs.cmd) })
	sc := redis.NewSentinelClient(&redis.Options{Addr: rs.SentinelAddr(), MaxRetries: -1})
	defer sc.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		replicas, err := sc.Replicas(context.Background(), "mymaster").Result()
		if err == nil && len(replicas) == 1 && !strings.Contains(replicas[0]["flags"], "down") &&
			replicas[0]["master-link-status"] == "ok" {
			return rs
		}
		require.True(t, time.Now().Before(deadline), "sentinel on %s did not see the replica: %v %v", rs.SentinelAddr(), err, replicas)
		time.Sleep(100 * time.Millisecond)
	}
}

// SentinelAddr is the Sentinel's host:port.
func (rs *RedisSentinel) SentinelAddr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(rs.sentinelPort))
}

// Failover has the Sentinel promote the replica, and waits until it names
// the replica as master.
func (rs *RedisSentinel) Failover(t testing.TB) {
	t.Helper()
	sc := redis.NewSentinelClient(&redis.Options{Addr: rs.SentinelAddr(), MaxRetries: -1})
	defer sc.Close()
	ctx := context.Background()
	require.NoError(t, sc.Failover(ctx, "mymaster").Err())
	deadline := time.Now().Add(20 * time.Second)
	for {
		addr, err := sc.GetMasterAddrByName(ctx, "mymaster").Result()
		if err == nil && len(addr) == 2 && addr[1] == strconv.Itoa(rs.Replica.port) {
			return
		}
		require.True(t, time.Now().Before(deadline), "sentinel did not fail over: %v %v", err, addr)
		time.Sleep(50 * time.Millisecond)
	}
}
