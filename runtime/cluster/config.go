package cluster

import (
	"crypto/tls"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
)

// Config says where Redis is and how the client behaves: Addr (one
// Redis), Addrs (a Redis Cluster, or with MasterName the Sentinels) or
// Client is required; every zero value takes the default named on its
// field.
type Config struct {
	// Addr is Redis's host:port.
	Addr string
	// Addrs, for Redis run for availability: with MasterName, the
	// Sentinels' host:port (the client follows failovers to the new
	// master); without, two or more seed nodes of a Redis Cluster (the
	// client follows the slot map, MOVED and ASK). On a Cluster the
	// KeyPrefix is put in a hash tag for you ("orders:" becomes
	// "{orders:}") unless it has one, so every key of the service shares a
	// slot, as each check's script needs.
	Addrs      []string
	MasterName string
	// SentinelUsername and SentinelPassword authenticate to the Sentinels
	// when they ask for it (Username and Password are the master's).
	SentinelUsername, SentinelPassword string
	// Client, when set, is used instead of a client made from the fields
	// above (a *redis.Client, *redis.ClusterClient or failover client);
	// the caller keeps it and closes it after Close. Give it
	// ContextTimeoutEnabled and MaxRetries -1 so that no check waits past
	// its deadline.
	Client redis.UniversalClient
	// Username and Password authenticate (Redis ACL; Username may be
	// empty for the legacy requirepass).
	Username string
	Password string
	// DB is the Redis database number; 0 by default.
	DB int
	// TLS, when set, connects over TLS with this configuration.
	TLS *tls.Config
	// KeyPrefix starts every key the client writes; "sentinel:" by
	// default. Give each service its own prefix. On Redis Cluster it is
	// put in a hash tag ("{orders:}") unless it has one, so all keys share
	// one slot, as the check script touches a window key and the instance
	// set together.
	KeyPrefix string
	// InstanceID names this process in the live-instance set; by default
	// hostname-pid-random.
	InstanceID string
	// HeartbeatInterval is how often the instance renews its registration;
	// 1s by default.
	HeartbeatInterval time.Duration
	// InstanceTTL is how long a registration lasts without renewal, so how
	// long a crashed instance still counts for thresholdType 0; 3s (three
	// heartbeats) by default.
	InstanceTTL time.Duration
	// Timeout caps every check's deadline. A rule's
	// clusterConfig.resourceTimeout (Java's default 2000 ms) is the
	// deadline otherwise, which is long for a flow check. 0: no cap.
	Timeout time.Duration
	// BreakerFailures consecutive failed checks open the breaker; 3 by
	// default.
	BreakerFailures int
	// BreakerCooldown is how long an open breaker skips Redis before one
	// call probes it again; 1s by default. The heartbeat probes every
	// 100 ms (at most HeartbeatInterval) meanwhile, and closes the breaker
	// as soon as Redis answers it.
	BreakerCooldown time.Duration
	// MaxParamValues is the most distinct argument values one
	// hot-parameter call sends to Redis (each is a key of the check
	// script); 100 by default. A call with more — a caller passing a
	// 100,000-element slice — is not sent: the rule checks it locally
	// (paramflow.ErrCheckLocally), as if it were not in cluster mode.
	MaxParamValues int
	// Leases, when set, admits flow-rule calls from leased tokens: the
	// instance takes a batch of the current window's tokens from Redis in
	// one round trip (counted there as admitted at once, so the fleet never
	// admits more than count in a window aligned on windowIntervalMs), and
	// admits calls locally until they run out; unused tokens die with their
	// window. Most calls then cost no round trip. Every instance sharing a
	// flowId must agree on it: leased and unleased instances count in
	// different keys. Off by default; see the package doc for when to turn
	// it on.
	Leases bool
	// PoolSize is the connection pool's size; go-redis's default (10 per
	// CPU) when 0.
	PoolSize int
}

func (c Config) withDefaults() Config {
	if c.KeyPrefix == "" {
		c.KeyPrefix = "sentinel:"
	}
	if c.InstanceID == "" {
		host, _ := os.Hostname()
		c.InstanceID = fmt.Sprintf("%s-%d-%08x", host, os.Getpid(), rand.Uint32())
	}
	if c.HeartbeatInterval <= 0 {
		c.HeartbeatInterval = time.Second
	}
	if c.InstanceTTL <= 0 {
		c.InstanceTTL = 3 * c.HeartbeatInterval
	}
	if c.BreakerFailures <= 0 {
		c.BreakerFailures = 3
	}
	if c.MaxParamValues <= 0 {
		c.MaxParamValues = 100
	}
	if c.BreakerCooldown <= 0 {
		c.BreakerCooldown = time.Second
	}
	return c
}
