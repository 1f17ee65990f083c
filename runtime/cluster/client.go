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
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

// ErrUnavailable is what Check returns while the breaker is open: Redis
// failed BreakerFailures checks in a row and is not asked again before
// BreakerCooldown has passed.
var ErrUnavailable = errors.New("cluster: redis unavailable (breaker open)")

// Client counts cluster rules in Redis. It implements flow.ClusterChecker
// and paramflow.ClusterChecker; Install makes both slots use it. Its methods are safe for concurrent
// use.
type Client struct {
	cfg          Config
	rdb          redis.UniversalClient
	ownsRDB      bool // made by New, so closed by Close
	instancesKey string
	br           breaker

	answered atomic.Int64
	failed   atomic.Int64
	skipped  atomic.Int64
	local    atomic.Int64 // calls with too many values, left to the local rule

	// The outage the breaker's opening began (see outage.go).
	dep                          *runtime.Dependency
	depMu                        sync.Mutex   // orders the breaker's transitions as dep tells them
	fellBackLocal, fellBackBlock atomic.Int64 // unanswered checks, by the rule's fallback
	outageLocal, outageBlock     atomic.Int64 // their values when the outage began
	// When the last outage ended: on Redis's clock (ms), and mono ns; 0:
	// none. A pair of stores, read as a pair only within a window of the
	// second (a racing read is off by one window's local check at most).
	recoveredRedis, recoveredMono atomic.Int64

	// Leased tokens (lease.go): per flow id, copied on write.
	leases             atomic.Pointer[map[int64]*leases]
	leasesMu           sync.Mutex
	params             paramLeases    // hot-parameter values' (paramlease.go)
	leased, leaseCalls atomic.Int64   // calls admitted from leases; lease requests answered
	bg                 sync.WaitGroup // prefetches in flight, waited for by Close
	// live is the live instances heartbeats counted (0: none answered
	// yet), which divide a global count while Redis is down; lowSince is
	// when heartbeats began to see fewer (see seeLive).
	live     atomic.Int64
	lowSince time.Time
	// redisOffset is Redis's clock less ours (ms) at the last heartbeat,
	// which places Redis's windows on our clock (recovering).
	redisOffset atomic.Int64

	// ctx is canceled by Close, so that a heartbeat in flight on a hung
	// Redis ends at once.
	ctx    context.Context
	cancel context.CancelFunc

	stop     chan struct{}
	done     chan struct{}
	closeOne sync.Once
}

var (
	_ flow.ClusterChecker      = (*Client)(nil)
	_ paramflow.ClusterChecker = (*Client)(nil)
)

// New connects to Redis as cfg says and registers this instance in the
// live-instance set, renewed by a background goroutine until Close. It
// does not wait for Redis: an unreachable Redis makes checks fail (and
// fall back) until it answers.
func New(cfg Config) (*Client, error) {
	if cfg.Addr == "" && len(cfg.Addrs) == 0 && cfg.Client == nil {
		return nil, errors.New("cluster: Config.Addr, Addrs and Client are all empty")
	}
	cfg = cfg.withDefaults()
	rdb, owned := cfg.Client, false
	if rdb == nil {
		rdb, owned = redis.NewUniversalClient(cfg.universalOptions()), true
	}
	if _, isCluster := rdb.(*redis.ClusterClient); isCluster {
		cfg.KeyPrefix = withHashTag(cfg.KeyPrefix)
	}
	c := &Client{
		cfg:          cfg,
		rdb:          rdb,
		ownsRDB:      owned,
		instancesKey: cfg.KeyPrefix + "instances",
		br:           breaker{failures: int32(cfg.BreakerFailures), cooldown: cfg.BreakerCooldown},
		dep:          runtime.NewDependency("cluster redis", cfg.serverName(), outageImpact),
		stop:         make(chan struct{}),
		done:         make(chan struct{}),
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.heartbeat()
	go c.heartbeats()
	return c, nil
}

// Install makes the flow and hot-parameter slots count their cluster
// rules with c, until Uninstall or another Install.
func (c *Client) Install() {
	flow.SetClusterChecker(c)
	paramflow.SetClusterChecker(c)
}

// Uninstall goes back to checking cluster rules locally.
func Uninstall() {
	flow.SetClusterChecker(nil)
	paramflow.SetClusterChecker(nil)
}

// closeTimeout bounds how long Close waits for Redis to deregister the
// instance (Config.Timeout when shorter).
const closeTimeout = 500 * time.Millisecond

// Close stops the heartbeat, gives its flow leases' unused tokens back to
// the current window, removes this instance from the live set (so
// thresholdType 0 shrinks at once rather than after InstanceTTL) and
// closes the connections. Uninstall it from the flow slot first.
//
// Close returns within about 500 ms (Config.Timeout when shorter) even
// when Redis does not answer: a heartbeat in flight is abandoned, and when
// the deregistration gets no answer in time the instance stays in the live
// set until its registration expires (InstanceTTL).
func (c *Client) Close() error {
	var err error
	c.closeOne.Do(func() {
		close(c.stop)
		c.cancel()
		<-c.done
		c.bg.Wait()
		d := closeTimeout
		if c.cfg.Timeout > 0 && c.cfg.Timeout < d {
			d = c.cfg.Timeout
		}
		ctx, cancel := context.WithTimeout(context.Background(), d)
		c.giveBack(ctx)
		c.rdb.ZRem(ctx, c.instancesKey, c.cfg.InstanceID)
		cancel()
		if c.ownsRDB {
			err = c.rdb.Close()
		}
		c.dep.Close()
	})
	return err
}

// InstanceID is this instance's name in the live set.
func (c *Client) InstanceID() string { return c.cfg.InstanceID }

// Stats counts checks: Answered by Redis, Failed (error, timeout or an
// unexpected reply), Skipped while the breaker was open, and Local: calls
// with more than MaxParamValues values, left to the local rule;
// BreakerOpen is the breaker's state now; Live is the live instances the
// last heartbeat counted (0 before one was answered), whose share of a
// global count each instance checks while Redis does not answer.
//
// With leases, Leased counts the calls admitted from a lease (no round
// trip) and Leases the lease requests Redis answered (counted in Answered
// too).
type Stats struct {
	Answered, Failed, Skipped, Local int64
	BreakerOpen                      bool
	Live                             int64
	Leased, Leases                   int64
}

// Stats returns the client's counters.
func (c *Client) Stats() Stats {
	return Stats{
		Answered:    c.answered.Load(),
		Failed:      c.failed.Load(),
		Skipped:     c.skipped.Load(),
		Local:       c.local.Load(),
		BreakerOpen: c.br.open(),
		Live:        c.live.Load(),
		Leased:      c.leased.Load(),
		Leases:      c.leaseCalls.Load(),
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

// Check counts a flow rule: the window script on the rule's flow id, one
// Redis round trip. It returns an error, and counts nothing, when Redis
// does not answer within the deadline or the breaker is open.
//
// A check that fails while the breaker stays closed (a timeout, a
// connection reset: not an outage, or not yet) says so with a
// *flow.LocalCount of 0, which refuses the call: admitted by the local
// fallback, it would not be in Redis's count, which the rest of the fleet
// spends whole in the same window.
func (c *Client) Check(ctx context.Context, rule *flow.Rule, acquire int64) (bool, error) {
	cc := rule.ClusterConfig
	if cc == nil {
		return false, fmt.Errorf("cluster: flow rule %q has no clusterConfig", rule.Resource)
	}
	ls := c.leasesOf(cc.FlowID)
	ls.asked.Add(acquire)
	var ok bool
	var err error
	if c.cfg.Leases {
		ok, err = c.checkLeased(ctx, ls, rule, acquire)
	} else {
		keys := []string{c.instancesKey, c.windowKey(cc.FlowID)}
		args := []any{cc.ThresholdType, 0, 0, formatCount(rule.Count), acquire}
		ok, err = c.run(ctx, keys, args, cc.SampleCount, cc.WindowIntervalMs, cc.ResourceTimeout, cc.FallbackToLocalWhenFail)
	}
	switch {
	case err != nil && c.blip(ctx):
		err = &flow.LocalCount{Count: 0, Err: err}
	case err != nil && cc.ThresholdType == thresholdGlobal:
		// The fleet's limit, not this instance's: each live instance
		// checks its share locally (see fallback in the package doc).
		err = &flow.LocalCount{Count: c.fallbackCount(&ls.demand, rule.Count), Err: err}
	}
	return ok, err
}

// blip reports whether a check that just failed left the breaker closed:
// Redis is still counting for the rest of the fleet, so what the local
// fallback admitted would be over the count. A check the caller gave up
// on is not a blip: the caller does not want an answer.
func (c *Client) blip(ctx context.Context) bool {
	return !c.br.open() && ctx.Err() == nil
}

// CheckParams counts a hot-parameter rule: the window script on one
// window per value of the rule's flow id, all or nothing, one Redis round
// trip. A value given twice counts twice. The deadline is Java's 2000 ms
// (ParamFlowClusterConfig has no resourceTimeout), capped by
// Config.Timeout.
func (c *Client) CheckParams(ctx context.Context, rule *paramflow.Rule, values []paramflow.ClusterValue, acquire int64) (bool, error) {
	cc := rule.ClusterConfig
	if cc == nil {
		return false, fmt.Errorf("cluster: hot-parameter rule %q has no clusterConfig", rule.Resource)
	}
	ok, err := c.checkParams(ctx, rule, values, acquire)
	if errors.Is(err, paramflow.ErrCheckLocally) {
		return ok, err
	}
	if err != nil && c.blip(ctx) {
		// Not an outage, or not yet: refused (see Check).
		return false, &paramflow.LocalCounts{Counts: make([]int64, len(values)), Err: err}
	}
	if cc.ThresholdType != thresholdGlobal {
		return ok, err
	}
	switch {
	case err != nil:
		// Each value's fleet-wide count, not this instance's: its share
		// is checked locally (see fallback in the package doc).
		err = &paramflow.LocalCounts{Counts: c.paramFallbackCounts(cc.FlowID, values), Err: err}
	case ok && cc.FallbackToLocalWhenFail && c.recovering(cc.WindowIntervalMs):
		// What the fallback admitted in this window is not in Redis:
		// the local share decides too until the window ends.
		err = &paramflow.LocalCounts{Counts: c.paramFallbackCounts(cc.FlowID, values)}
	}
	return ok, err
}

func (c *Client) checkParams(ctx context.Context, rule *paramflow.Rule, values []paramflow.ClusterValue, acquire int64) (bool, error) {
	cc := rule.ClusterConfig
	n := min(len(values), c.cfg.MaxParamValues)
	keys := make([]string, 1, 1+n)
	keys[0] = c.instancesKey
	args := make([]any, 3, 3+2*n)
	args[0] = cc.ThresholdType
	seen := make(map[string]int, min(len(values), c.cfg.MaxParamValues))
	for _, v := range values {
		k := c.paramKey(cc.FlowID, v.Key)
		if i, dup := seen[k]; dup {
			args[3+2*i+1] = args[3+2*i+1].(int64) + acquire
			continue
		}
		if len(seen) == c.cfg.MaxParamValues {
			c.local.Add(1)
			return false, fmt.Errorf("cluster: hot-parameter rule %q: a call with more than %d distinct values is not sent to Redis: %w",
				rule.Resource, c.cfg.MaxParamValues, paramflow.ErrCheckLocally)
		}
		seen[k] = len(keys) - 1
		keys = append(keys, k)
		args = append(args, v.Count, acquire)
	}
	if c.cfg.Leases && len(keys) > 1 {
		vals := len(keys) - 1
		leaseKeys, counts, needs := make([]string, vals), make([]float64, vals), make([]int64, vals)
		for i := range vals {
			leaseKeys[i] = c.leaseKeyOf(keys[1+i])
			counts[i] = float64(args[3+2*i].(int64))
			needs[i] = args[3+2*i+1].(int64)
		}
		return c.checkParamsLeased(ctx, rule, leaseKeys, counts, needs)
	}
	return c.run(ctx, keys, args, cc.SampleCount, cc.WindowIntervalMs, 0, cc.FallbackToLocalWhenFail)
}

// run runs the window script through the breaker, with the check's
// deadline; args[1] and args[2] are filled with the window's shape.
func (c *Client) run(ctx context.Context, keys []string, args []any, samples, windowMs int, timeoutMs int64, fallback bool) (bool, error) {
	args[1], args[2] = windowShape(samples, windowMs)
	var verdict int64
	err := c.eval(ctx, windowScript, keys, args, timeoutMs, fallback, func(res []any) error {
		v, isInt := res[0].(int64)
		if !isInt || (v != 0 && v != 1) {
			return fmt.Errorf("cluster: unexpected verdict %#v from the window script, want 0 or 1", res[0])
		}
		verdict = v
		return nil
	})
	return verdict == 1, err
}

// eval runs a script through the breaker with the check's deadline, and
// hands its reply to parse. A reply parse refuses is not what the script
// answers: something else is at the address (a proxy, another script
// under this SHA). Neither admit nor block on it: it is a failure like any
// other, which the breaker counts and the rule's fallback answers.
// fallback is the rule's fallbackToLocalWhenFail, for the outage's tally.
func (c *Client) eval(ctx context.Context, script *redis.Script, keys []string, args []any, timeoutMs int64, fallback bool, parse func([]any) error) error {
	ok, probe := c.br.allow()
	if !ok {
		c.skipped.Add(1)
		c.unanswered(fallback)
		return ErrUnavailable
	}
	tctx, cancel := context.WithTimeout(ctx, c.timeout(timeoutMs))
	defer cancel()
	res, err := script.Run(tctx, c.rdb, keys, args...).Slice()
	if err == nil && len(res) == 0 {
		err = errors.New("cluster: empty reply from a cluster script")
	}
	if err != nil {
		if ctx.Err() != nil {
			// The caller gave up: no verdict on Redis.
			c.br.abandon(probe)
		} else {
			c.failure(probe, err)
		}
		c.failed.Add(1)
		c.unanswered(fallback)
		return err
	}
	if err := parse(res); err != nil {
		c.failure(probe, err)
		c.failed.Add(1)
		c.unanswered(fallback)
		return err
	}
	c.success(probe)
	c.answered.Add(1)
	return nil
}

func formatCount(n float64) string { return strconv.FormatFloat(n, 'g', -1, 64) }

// LiveInstances counts the instances registered and not expired.
func (c *Client) LiveInstances(ctx context.Context) (int64, error) {
	return liveScript.Run(ctx, c.rdb, []string{c.instancesKey}).Int64()
}

// heartbeat registers the instance once, reports its demand per flow id
// and takes the fleet's; a failure is retried at the next tick (until
// then, the instance counts for nobody's thresholdType 0 but its own
// checks still work). A heartbeat Redis answers while the breaker is open
// (within the time a check may wait) ends the outage at once: cluster
// counting resumes without waiting for a call's probe.
func (c *Client) heartbeat() {
	ctx, cancel := context.WithTimeout(c.ctx, c.cfg.HeartbeatInterval)
	defer cancel()
	ids, ds := c.demands()
	keys := make([]string, 1, 1+len(ids))
	keys[0] = c.instancesKey
	args := make([]any, 2, 2+len(ids))
	args[0], args[1] = c.cfg.InstanceID, c.cfg.InstanceTTL.Milliseconds()
	rates := make([]float64, len(ds))
	now := mono()
	for i, d := range ds {
		rates[i] = d.measure(now)
		keys = append(keys, c.demandKey(ids[i]))
		args = append(args, milli(rates[i]))
	}
	sent := time.Now()
	res, err := heartbeatScript.Run(ctx, c.rdb, keys, args...).Int64Slice()
	if err != nil || len(res) != 2+3*len(ds) || res[1] <= 0 {
		return // no answer, or not the script's (something else answers)
	}
	recv := time.Now()
	c.seeLive(res[0], recv)
	// Redis's clock against ours, read half-way through the round trip.
	c.redisOffset.Store(res[1] - sent.Add(recv.Sub(sent)/2).UnixMilli())
	for i, d := range ds {
		// A Redis that restarted empty hears the fleet's rates one
		// heartbeat at a time: a sum of fewer instances than are live
		// would make this one's share too large.
		if r := res[2+3*i:]; r[1] >= c.live.Load() {
			d.seeFleet(float64(milli(rates[i]))/1000, float64(r[0])/1000, r[1], float64(r[2])/1000)
		}
	}
	// A heartbeat slower than a check may wait proves nothing for checks:
	// closing on it would open and close the breaker, each told, while a
	// slow Redis keeps timing checks out.
	if c.br.open() && recv.Sub(sent) < c.timeout(0) {
		c.success(false)
	}
}

// probeInterval is how often heartbeats come while the breaker is open
// (HeartbeatInterval when shorter): each is a probe, so the fleet counts
// in Redis again within this long of Redis answering.
const probeInterval = 100 * time.Millisecond

func (c *Client) heartbeats() {
	defer close(c.done)
	t := time.NewTimer(c.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.heartbeat()
			next := c.cfg.HeartbeatInterval
			if c.br.open() {
				next = min(next, probeInterval)
			}
			t.Reset(next)
		}
	}
}
