package cluster

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// leaseScript grants an instance a batch of the current window's tokens
// of one flow id, counted in Redis as admitted at once, so that the fleet
// never admits more than the threshold in a window, however the tokens
// are spent.
//
// Windows are aligned on windowIntervalMs on Redis's clock (TIME). KEYS[1]
// is the live-instance set, KEYS[2] the flow id's lease hash: w (the
// window's start, ms) and n (tokens granted in it). ARGV[1]
// thresholdType, ARGV[2] windowIntervalMs, ARGV[3] count, ARGV[4] tokens
// wanted. The threshold is floor(count), or floor(count × live instances)
// for thresholdType 0 (at least one instance). The grant is what is wanted
// or what is left, whichever is less (0 when none is left).
// Reply: {granted, ms left in the window, threshold, window start,
// tokens left in the window after this grant}.
var leaseScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
local start = now - (now % window)
local instances = 1
if ARGV[1] == '0' then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  local n = redis.call('ZCARD', KEYS[1])
  if n > 1 then instances = n end
end
local threshold = math.floor(tonumber(ARGV[3]) * instances)
local taken = 0
local h = redis.call('HMGET', KEYS[2], 'w', 'n')
if tonumber(h[1]) == start then taken = tonumber(h[2]) end
local grant = threshold - taken
local want = tonumber(ARGV[4])
if grant > want then grant = want end
if grant < 0 then grant = 0 end
if grant > 0 or taken == 0 then
  redis.call('HSET', KEYS[2], 'w', start, 'n', taken + grant)
  redis.call('PEXPIRE', KEYS[2], 2 * window)
end
return {grant, window - (now - start), threshold, start, threshold - taken - grant}
`)

// monoBase anchors mono: leases expire on the monotonic clock, which wall
// clock steps cannot move.
var monoBase = time.Now()

func mono() int64 { return int64(time.Since(monoBase)) }

// lease is the tokens an instance holds for one window of one flow id.
type lease struct {
	window int64 // the window's start on Redis's clock (ms)
	// deadline is the mono ns after which the tokens are dead: the
	// latest of its grants' safe bounds (see grant).
	deadline atomic.Int64
	low      int64 // tokens left at which the next batch is fetched
	tokens   atomic.Int64
	// exhausted: Redis granted less than was asked, so nothing is left in
	// this window for anyone; calls past the tokens are refused without
	// asking again.
	exhausted atomic.Bool
	threshold int64
}

// take spends acquire tokens, or none.
func (l *lease) take(acquire int64) bool {
	for {
		n := l.tokens.Load()
		if n < acquire {
			return false
		}
		if l.tokens.CompareAndSwap(n, n-acquire) {
			return true
		}
	}
}

// leases is one flow id's lease state in this instance.
type leases struct {
	cur atomic.Pointer[lease]
	// mu is held by the one request in flight; callers with no tokens
	// wait for it rather than each asking Redis.
	mu        sync.Mutex
	refilling atomic.Bool
	// demand counts the tokens calls asked for in the current window, and
	// prev those of the one before: a batch is sized from them.
	demand, prev atomic.Int64
}

// leasesOf is flowID's lease state, made on its first call. The map is
// copied on write: flow ids come from rules, so it changes as seldom as
// they do, and a lookup takes no lock.
func (c *Client) leasesOf(flowID int64) *leases {
	if m := c.leases.Load(); m != nil {
		if ls := (*m)[flowID]; ls != nil {
			return ls
		}
	}
	c.leasesMu.Lock()
	defer c.leasesMu.Unlock()
	old := c.leases.Load()
	if old != nil {
		if ls := (*old)[flowID]; ls != nil {
			return ls
		}
	}
	m := make(map[int64]*leases, 1+len(ptrMap(old)))
	for k, v := range ptrMap(old) {
		m[k] = v
	}
	ls := &leases{}
	m[flowID] = ls
	c.leases.Store(&m)
	return ls
}

func ptrMap(m *map[int64]*leases) map[int64]*leases {
	if m == nil {
		return nil
	}
	return *m
}

// checkLeased admits a call from this instance's lease of the rule's
// current window, asking Redis for a batch when none is left: no round
// trip for most calls. The fast path is one clock read and two atomic
// operations.
func (c *Client) checkLeased(ctx context.Context, rule *flow.Rule, acquire int64) (bool, error) {
	cc := rule.ClusterConfig
	ls := c.leasesOf(cc.FlowID)
	ls.demand.Add(acquire)
	for range 2 {
		if l := ls.cur.Load(); l != nil && mono() < l.deadline.Load() {
			if l.take(acquire) {
				c.leased.Add(1)
				if l.tokens.Load() <= l.low {
					c.prefetch(ls, l, rule)
				}
				return true, nil
			}
			if l.exhausted.Load() {
				return false, nil
			}
		}
		if err := c.refill(ctx, ls, rule, acquire); err != nil {
			return false, err
		}
	}
	// Still no tokens after a grant: Redis had fewer left than the call
	// needs, or the window turned while asking.
	return false, nil
}

// batch is how many tokens to ask for: half the instance's demand in the
// busier of this window and the last (so two or three requests a window
// at a steady rate), at least acquire, and at most an even share of the
// threshold among the live instances, so a quiet instance never sits on
// tokens a busy one needs and a busy one takes the rest in further batches.
func (c *Client) batch(ls *leases, rule *flow.Rule, acquire int64) int64 {
	want := max(ls.demand.Load(), ls.prev.Load()) / 2
	threshold := int64(rule.Count)
	if rule.ClusterConfig.ThresholdType != thresholdGlobal {
		threshold = int64(rule.Count * float64(max(1, c.live.Load())))
	} else if l := ls.cur.Load(); l != nil && l.threshold > 0 {
		threshold = l.threshold
	}
	share := max(1, threshold/max(1, c.live.Load()))
	return max(acquire, min(want, share))
}

// refill asks Redis for a batch, unless another call got one meanwhile.
func (c *Client) refill(ctx context.Context, ls *leases, rule *flow.Rule, acquire int64) error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l := ls.cur.Load(); l != nil && mono() < l.deadline.Load() && (l.tokens.Load() >= acquire || l.exhausted.Load()) {
		return nil
	}
	return c.grant(ctx, ls, rule, c.batch(ls, rule, acquire))
}

// prefetch asks for the next batch in the background once the lease is
// down to a quarter of its batch, so calls seldom wait for Redis.
func (c *Client) prefetch(ls *leases, l *lease, rule *flow.Rule) {
	if l.exhausted.Load() || !ls.refilling.CompareAndSwap(false, true) {
		return
	}
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		defer ls.refilling.Store(false)
		if !ls.mu.TryLock() {
			return // a call is asking already
		}
		defer ls.mu.Unlock()
		_ = c.grant(c.ctx, ls, rule, c.batch(ls, rule, 1))
	}()
}

// grant runs the lease script and installs its grant (ls.mu held). The
// lease's deadline is the window's end measured from when the request was
// sent: the script ran after that, so the tokens die no later than the
// window on Redis's clock.
func (c *Client) grant(ctx context.Context, ls *leases, rule *flow.Rule, want int64) error {
	cc := rule.ClusterConfig
	windowMs := cc.WindowIntervalMs
	if windowMs <= 0 {
		windowMs = flow.DefaultClusterWindowIntervalMs
	}
	sent := mono()
	var reply [5]int64 // granted, ms left, threshold, window start, tokens left
	err := c.eval(ctx, leaseScript, []string{c.instancesKey, c.leaseKey(cc.FlowID)},
		[]any{cc.ThresholdType, windowMs, formatCount(rule.Count), want}, cc.ResourceTimeout, cc.FallbackToLocalWhenFail,
		func(res []any) error {
			if len(res) != len(reply) {
				return fmt.Errorf("cluster: unexpected reply %#v from the lease script", res)
			}
			for i := range reply {
				v, ok := res[i].(int64)
				if !ok {
					return fmt.Errorf("cluster: unexpected reply %#v from the lease script", res)
				}
				reply[i] = v
			}
			if reply[0] < 0 || reply[0] > want || reply[1] <= 0 || reply[1] > int64(windowMs) {
				return fmt.Errorf("cluster: unexpected reply %#v from the lease script", res)
			}
			return nil
		})
	if err != nil {
		return err
	}
	granted, left, threshold, window := reply[0], reply[1], reply[2], reply[3]
	// Spent: Redis has no more tokens in this window for anyone, so calls
	// past these are refused without asking again.
	spent := granted < want || reply[4] <= 0
	c.leaseCalls.Add(1)
	deadline := sent + left*int64(time.Millisecond)
	cur := ls.cur.Load()
	switch {
	case cur != nil && cur.window == window:
		// Each grant's deadline is a safe bound on the window's end; the
		// later one is the better.
		if deadline > cur.deadline.Load() {
			cur.deadline.Store(deadline)
		}
		cur.tokens.Add(granted)
		if spent {
			cur.exhausted.Store(true)
		}
	case cur == nil || window > cur.window:
		l := &lease{window: window, threshold: threshold, low: want / 4}
		l.deadline.Store(deadline)
		l.tokens.Store(granted)
		l.exhausted.Store(spent)
		ls.prev.Store(ls.demand.Swap(0))
		ls.cur.Store(l)
	}
	// A grant for a window older than the lease in force (a slow
	// request) is dropped: its tokens die unused.
	return nil
}
