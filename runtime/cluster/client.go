package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// ErrUnavailable is what Check returns while the breaker is open: Redis
// failed BreakerFailures checks in a row and is not asked again before
// BreakerCooldown has passed.
var ErrUnavailable = errors.New("cluster: redis unavailable (breaker open)")

// Client counts cluster rules in Redis. It implements flow.ClusterChecker;
// Install makes the flow slot use it. Its methods are safe for concurrent
// use.
type Client struct {
	cfg          Config
	rdb          *redis.Client
	instancesKey string
	br           breaker

	answered atomic.Int64
	failed   atomic.Int64
	skipped  atomic.Int64

	stop     chan struct{}
	done     chan struct{}
	closeOne sync.Once
}

var _ flow.ClusterChecker = (*Client)(nil)

// New connects to Redis as cfg says and registers this instance in the
// live-instance set, renewed by a background goroutine until Close. It
// does not wait for Redis: an unreachable Redis makes checks fail (and
// fall back) until it answers.
func New(cfg Config) (*Client, error) {
	if cfg.Addr == "" {
		return nil, errors.New("cluster: Config.Addr is empty")
	}
	cfg = cfg.withDefaults()
	opt := &redis.Options{
		Addr:      cfg.Addr,
		Username:  cfg.Username,
		Password:  cfg.Password,
		DB:        cfg.DB,
		TLSConfig: cfg.TLS,
		PoolSize:  cfg.PoolSize,
		// RESP2 and no CLIENT SETINFO: a new connection costs no extra
		// round trips beyond AUTH/SELECT when configured.
		Protocol:        2,
		DisableIdentity: true,
		// Deadlines come from each check's context; go-redis must neither
		// retry a command nor redial in the background past them.
		ContextTimeoutEnabled:    true,
		MaxRetries:               -1,
		DialerRetries:            1,
		DialTimeout:              time.Second,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
	if cfg.Timeout > 0 {
		opt.DialTimeout = cfg.Timeout
		opt.PoolTimeout = cfg.Timeout
	}
	c := &Client{
		cfg:          cfg,
		rdb:          redis.NewClient(opt),
		instancesKey: cfg.KeyPrefix + "instances",
		br:           breaker{failures: int32(cfg.BreakerFailures), cooldown: cfg.BreakerCooldown},
		stop:         make(chan struct{}),
		done:         make(chan struct{}),
	}
	c.heartbeat()
	go c.heartbeats()
	return c, nil
}

// Install makes the flow slot count cluster rules with c, until
// Uninstall or another Install.
func (c *Client) Install() { flow.SetClusterChecker(c) }

// Uninstall goes back to checking cluster rules locally.
func Uninstall() { flow.SetClusterChecker(nil) }

// Close stops the heartbeat, removes this instance from the live set (so
// thresholdType 0 shrinks at once rather than after InstanceTTL) and
// closes the connections. Uninstall it from the flow slot first.
func (c *Client) Close() error {
	var err error
	c.closeOne.Do(func() {
		close(c.stop)
		<-c.done
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout(0))
		c.rdb.ZRem(ctx, c.instancesKey, c.cfg.InstanceID)
		cancel()
		err = c.rdb.Close()
	})
	return err
}

// InstanceID is this instance's name in the live set.
func (c *Client) InstanceID() string { return c.cfg.InstanceID }

// Stats counts checks: Answered by Redis, Failed (error or timeout), and
// Skipped while the breaker was open; BreakerOpen is its state now.
type Stats struct {
	Answered, Failed, Skipped int64
	BreakerOpen               bool
}

// Stats returns the client's counters.
func (c *Client) Stats() Stats {
	return Stats{
		Answered:    c.answered.Load(),
		Failed:      c.failed.Load(),
		Skipped:     c.skipped.Load(),
		BreakerOpen: c.br.open(),
	}
}

// timeout is a check's deadline: the rule's resourceTimeout (ms; Java's
// 2000 when 0), capped by Config.Timeout.
func (c *Client) timeout(resourceTimeoutMs int64) time.Duration {
	if resourceTimeoutMs <= 0 {
		resourceTimeoutMs = flow.DefaultResourceTimeoutMs
	}
	d := time.Duration(resourceTimeoutMs) * time.Millisecond
	if c.cfg.Timeout > 0 && c.cfg.Timeout < d {
		d = c.cfg.Timeout
	}
	return d
}

// Check runs the window script for rule's flow id: one Redis round trip.
// It returns an error, and counts nothing, when Redis does not answer
// within the deadline or the breaker is open.
func (c *Client) Check(ctx context.Context, rule *flow.Rule, acquire int64) (bool, error) {
	cc := rule.ClusterConfig
	if cc == nil {
		return false, fmt.Errorf("cluster: rule %q has no clusterConfig", rule.Resource)
	}
	ok, probe := c.br.allow()
	if !ok {
		c.skipped.Add(1)
		return false, ErrUnavailable
	}
	samples, window := cc.SampleCount, cc.WindowIntervalMs
	if samples <= 0 {
		samples = flow.DefaultClusterSampleCount
	}
	if window <= 0 {
		window = flow.DefaultClusterWindowIntervalMs
	}
	tctx, cancel := context.WithTimeout(ctx, c.timeout(cc.ResourceTimeout))
	defer cancel()
	res, err := windowScript.Run(tctx, c.rdb, []string{c.windowKey(cc.FlowID), c.instancesKey},
		acquire, strconv.FormatFloat(rule.Count, 'g', -1, 64), cc.ThresholdType, samples, window/samples).Slice()
	if err == nil && len(res) == 0 {
		err = errors.New("cluster: empty reply from the window script")
	}
	if err != nil {
		if ctx.Err() != nil {
			// The caller gave up: no verdict on Redis.
			c.br.abandon(probe)
		} else {
			c.br.failure(probe)
		}
		c.failed.Add(1)
		return false, err
	}
	c.br.success(probe)
	c.answered.Add(1)
	admitted, _ := res[0].(int64)
	return admitted == 1, nil
}

// LiveInstances counts the instances registered and not expired.
func (c *Client) LiveInstances(ctx context.Context) (int64, error) {
	return liveScript.Run(ctx, c.rdb, []string{c.instancesKey}).Int64()
}

// heartbeat registers the instance once; a failure is retried at the
// next tick (until then, the instance counts for nobody's thresholdType 0
// but its own checks still work).
func (c *Client) heartbeat() {
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.HeartbeatInterval)
	defer cancel()
	heartbeatScript.Run(ctx, c.rdb, []string{c.instancesKey}, c.cfg.InstanceID, c.cfg.InstanceTTL.Milliseconds())
}

func (c *Client) heartbeats() {
	defer close(c.done)
	t := time.NewTicker(c.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.heartbeat()
		}
	}
}
