package cluster

import (
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// universalOptions is the go-redis client New makes for cfg: a single
// Redis (Addr, or one of Addrs), a Redis Cluster (two or more Addrs, the
// seed nodes) or a Sentinel-managed Redis (MasterName, Addrs the
// sentinels).
func (cfg Config) universalOptions() *redis.UniversalOptions {
	addrs := cfg.Addrs
	if cfg.Addr != "" {
		addrs = append([]string{cfg.Addr}, addrs...)
	}
	opt := &redis.UniversalOptions{
		Addrs:      addrs,
		MasterName: cfg.MasterName,
		Username:   cfg.Username,
		Password:   cfg.Password,
		DB:         cfg.DB,
		TLSConfig:  cfg.TLS,
		PoolSize:   cfg.PoolSize,
		// Sentinels may want their own credentials.
		SentinelUsername: cfg.SentinelUsername,
		SentinelPassword: cfg.SentinelPassword,
		// RESP2 and no CLIENT SETINFO: a new connection costs no extra
		// round trips beyond AUTH/SELECT when configured.
		Protocol:        2,
		DisableIdentity: true,
		// Deadlines come from each check's context; go-redis must neither
		// retry a command nor redial in the background past them. A
		// Cluster's MOVED and ASK redirections (a slot migrating) are
		// followed, within the same deadline.
		ContextTimeoutEnabled:    true,
		MaxRetries:               -1,
		MaxRedirects:             3,
		DialerRetries:            1,
		DialTimeout:              time.Second,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
	if cfg.Timeout > 0 {
		opt.DialTimeout = cfg.Timeout
		opt.PoolTimeout = cfg.Timeout
	}
	return opt
}

// serverName names the Redis in logs, metrics and the dashboard.
func (cfg Config) serverName() string {
	switch {
	case cfg.MasterName != "":
		return cfg.MasterName + " via sentinels " + strings.Join(cfg.Addrs, ",")
	case cfg.Client != nil && cfg.Addr == "" && len(cfg.Addrs) == 0:
		return "redis client"
	}
	return strings.Join(cfg.universalOptions().Addrs, ",")
}

// withHashTag puts prefix in a Redis Cluster hash tag ("orders:" becomes
// "{orders:}") unless it has one: a check's script touches a window key
// and the instance set together, and Redis Cluster runs a script only on
// keys of one slot.
func withHashTag(prefix string) string {
	if i := strings.IndexByte(prefix, '{'); i >= 0 {
		if j := strings.IndexByte(prefix[i+1:], '}'); j > 0 {
			return prefix // a non-empty tag already
		}
	}
	return "{" + prefix + "}"
}
