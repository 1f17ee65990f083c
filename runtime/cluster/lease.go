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
// of one or more windows (a flow id's, or one per argument value of a
// hot-parameter call), counted in Redis as admitted at once, so that the
// fleet never admits more than the threshold in a window, however the
// tokens are spent.
//
// Windows are aligned on windowIntervalMs on Redis's clock (TIME). KEYS[1]
// is the live-instance set, KEYS[2..n] lease hashes: w (the window's
// start, ms) and n (tokens granted in it). ARGV[1] thresholdType, ARGV[2]
// windowIntervalMs, ARGV[3] the instance's id when it reports its demand
// per lease hash (empty when not), then for KEYS[k] its count ARGV[4k-4],
// the tokens allotted to this instance for a whole window ARGV[4k-3], the
// fewest it needs ARGV[4k-2], and its demand (calls a window) ARGV[4k-1].
// A threshold is floor(count), or floor(count × live instances) for
// thresholdType 0 (at least one instance). The instance wants its
// allotment for the time left in the window (at least what it needs); a
// grant is what it wants or what is left, whichever is less (0 when none
// is left). A reported demand is kept in the hash as d:<id> =
// "<expiry>:<demand>" for two windows, and the fleet's summed. Reply,
// nine numbers per lease hash: granted, µs left in the window (to the
// µs TIME gives, not the ms the window is placed by: a lease that believed
// the ms it began in was whole outlived its window by up to a ms, and
// calls at the turn spent a window's tokens in the next),
// threshold, window start, tokens left in the window after this grant,
// tokens wanted, the fleet's demand (0 unreported), the instances that
// reported it, and their demands raised to a quarter of an even share
// (luaShares).
var leaseScript = redis.NewScript(leaseSource)

// leaseSource is leaseScript's text.
const leaseSource = luaNow + luaShares + `
local window = tonumber(ARGV[2])
local start = now - (now % window)
local left = (start + window) * 1000 - (tonumber(t[1]) * 1000000 + tonumber(t[2]))
local id = ARGV[3]
` + luaInstances + `
local out = {}
for k = 2, #KEYS do
  local threshold = math.floor(tonumber(ARGV[4 * k - 4]) * instances)
  local taken = 0
  local h = redis.call('HMGET', KEYS[k], 'w', 'n')
  if tonumber(h[1]) == start then taken = tonumber(h[2]) end
  local want = math.ceil(tonumber(ARGV[4 * k - 3]) * left / (window * 1000))
  local need = tonumber(ARGV[4 * k - 2])
  if want < need then want = need end
  local grant = threshold - taken
  if grant > want then grant = want end
  if grant < 0 then grant = 0 end
  if grant > 0 or taken == 0 then
    redis.call('HSET', KEYS[k], 'w', start, 'n', taken + grant)
  end
  local fleet, reporters, floored = 0, 0, 0
  if id ~= '' then
    redis.call('HSET', KEYS[k], 'd:' .. id, (now + 2 * window) .. ':' .. ARGV[4 * k - 1])
    local all = redis.call('HGETALL', KEYS[k])
    local demands = {}
    for i = 1, #all, 2 do
      if string.sub(all[i], 1, 2) == 'd:' then
        local exp, d = string.match(all[i + 1], '^(%d+):(%d+)$')
        if exp == nil or tonumber(exp) <= now then
          redis.call('HDEL', KEYS[k], all[i])
        else
          demands[#demands + 1] = tonumber(d)
        end
      end
    end
    fleet, reporters, floored = shares(demands)
  end
  redis.call('PEXPIRE', KEYS[k], 2 * window)
  local i = #out
  out[i + 1] = grant
  out[i + 2] = left
  out[i + 3] = threshold
  out[i + 4] = start
  out[i + 5] = threshold - taken - grant
  out[i + 6] = want
  out[i + 7] = fleet
  out[i + 8] = reporters
  out[i + 9] = floored
end
return out
`

// returnScript gives a lease's unused tokens back to its window (Close):
// for KEYS[k], ARGV[2k-1] tokens of the window starting at ARGV[2k]
// (Redis ms), taken off n when that window is still the hash's.
var returnScript = redis.NewScript(`
for k = 1, #KEYS do
  local h = redis.call('HMGET', KEYS[k], 'w', 'n')
  if tonumber(h[1]) == tonumber(ARGV[2 * k]) and tonumber(h[2]) ~= nil then
    local n = tonumber(h[2]) - tonumber(ARGV[2 * k - 1])
    if n < 0 then n = 0 end
    redis.call('HSET', KEYS[k], 'n', n)
  end
end
return 1
`)

// monoBase anchors mono: leases expire on the monotonic clock, which wall
// clock steps cannot move.
var monoBase = time.Now()

// mono is a variable so that internal tests can step it by hand.
var mono = func() int64 { return int64(time.Since(monoBase)) }

// lease is the tokens an instance holds for one window of one flow id.
type lease struct {
	window int64 // the window's start on Redis's clock (ms)
	// deadline is the mono ns after which the tokens are dead: the
	// latest of its grants' safe bounds (see grant).
	deadline atomic.Int64
	// ends is the mono ns by which the window has surely ended on Redis's
	// clock (a grant's reply time plus the µs it said were left): an
	// exhausted lease refuses without asking until then, as Redis would.
	ends   atomic.Int64
	low    int64 // tokens left at which the next batch is fetched
	tokens atomic.Int64
	// exhausted: Redis granted less than was asked, so nothing is left in
	// this window for anyone; calls past the tokens are refused without
	// asking again.
	exhausted atomic.Bool
	threshold int64
}

// spentUntilTurn reports whether, its tokens dead at now, the lease's
// window is spent and may not have turned yet on Redis's clock: asking
// Redis then would only be told so, and the request for the next window
// would follow at once (two round trips a window instead of one).
func (l *lease) spentUntilTurn(now int64) bool {
	return l.exhausted.Load() && now < l.ends.Load()
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

// leases is one flow id's lease state in this instance (or one
// hot-parameter value's), and its demand.
type leases struct {
	demand
	cur atomic.Pointer[lease]
	// mu is held by the one request in flight; callers with no tokens
	// wait for it rather than each asking Redis.
	mu        sync.Mutex
	refilling atomic.Bool
	// windowAsked is demand.asked when the current lease's window began,
	// and lastWindow the tokens calls asked for in the one before: a
	// batch is sized from them until heartbeats have measured the demand.
	windowAsked, lastWindow atomic.Int64
	// installMu orders installs of grants (a hot-parameter value's may
	// race, as they are not asked under mu).
	installMu sync.Mutex
}

// inWindow is the tokens calls asked for in the current lease's window.
func (ls *leases) inWindow() int64 { return ls.asked.Load() - ls.windowAsked.Load() }

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
	ls.snapAt = mono() // the demand is measured from the first call on
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
func (c *Client) checkLeased(ctx context.Context, ls *leases, rule *flow.Rule, acquire int64) (bool, error) {
	for range 2 {
		if l := ls.cur.Load(); l != nil {
			if now := mono(); now < l.deadline.Load() {
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
			} else if l.spentUntilTurn(now) {
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

// leaseHeadroom is how much more than its measured demand an instance
// asks for while the fleet's demand is under the threshold, so that a
// lease lasts its window at a steady rate.
const leaseHeadroom = 1.5

// batch sizes a lease request: the tokens allotted to this instance for a
// whole window (the script takes the part for the time left in it), the
// fewest it needs (acquire), and whether the grant is final for the window.
//
// Once the fleet's demand is known (from heartbeats for a flow id, from
// lease requests for a hot value): where the fleet asks for more than the
// threshold, the allotment is the instance's share of the fleet's demand
// times the threshold (see demand.seeFleet), and final: the instances'
// shares add up to the threshold, so each asks once a
// window and refuses without asking once its grant is spent. Otherwise it
// is leaseHeadroom times its own measured demand (or the cold estimate
// below, when more; a hot value's is not measured), not final: the rest
// stays in Redis for whoever needs it.
//
// Before that (a new client or value): half the instance's
// demand in the busier of this window and the last, at most an even share
// of the threshold among the live instances, so a quiet instance never
// sits on tokens a busy one needs and a busy one takes the rest in
// further batches.
func (c *Client) batch(ls *leases, count float64, thresholdType, windowMs int, acquire int64) (allot float64, need int64, final bool) {
	live := max(1, c.live.Load())
	threshold := int64(count)
	if thresholdType != thresholdGlobal {
		threshold = int64(count * float64(live))
	}
	cold := max(1, min(max(ls.inWindow(), ls.lastWindow.Load())/2, threshold/live))
	share, measured := ls.share()
	if !measured {
		return 0, max(acquire, cold), false
	}
	if windowMs <= 0 {
		windowMs = flow.DefaultClusterWindowIntervalMs
	}
	perWindow := float64(windowMs) / 1000
	if ls.fleetRate()*perWindow > float64(threshold) {
		return float64(threshold) * share, acquire, true
	}
	return min(float64(threshold), max(leaseHeadroom*ls.perSecond()*perWindow, float64(cold))), acquire, false
}

// refill asks Redis for a batch, unless another call got one meanwhile.
func (c *Client) refill(ctx context.Context, ls *leases, rule *flow.Rule, acquire int64) error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l := ls.cur.Load(); l != nil {
		now := mono()
		if (now < l.deadline.Load() && (l.tokens.Load() >= acquire || l.exhausted.Load())) || l.spentUntilTurn(now) {
			return nil
		}
	}
	return c.grant(ctx, ls, rule, acquire)
}

// prefetch asks for the next batch in the background once the lease is
// down to a quarter of its batch and the instance's measured demand would
// spend the rest before the window ends, so calls seldom wait for Redis
// and a lease that lasts its window costs no second request.
func (c *Client) prefetch(ls *leases, l *lease, rule *flow.Rule) {
	if l.exhausted.Load() {
		return
	}
	if rate := ls.perSecond(); rate > 0 && float64(l.tokens.Load()) >= rate*float64(l.deadline.Load()-mono())/float64(time.Second) {
		return
	}
	if !ls.refilling.CompareAndSwap(false, true) {
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
		_ = c.grant(c.ctx, ls, rule, 1)
	}()
}

// leaseAsk is one lease hash's part of a lease script call (see batch).
// ls nil asks for need tokens spent at once, held nowhere (a value the
// lease table has no room for).
type leaseAsk struct {
	ls    *leases
	key   string
	count float64
	allot float64
	need  int64
	final bool
	// demand is the calls a window this instance reports for the lease
	// hash (hot-parameter values; a flow id's goes with heartbeats).
	demand int64
}

// grant asks for a flow rule's next batch, of at least acquire tokens
// (ls.mu held).
func (c *Client) grant(ctx context.Context, ls *leases, rule *flow.Rule, acquire int64) error {
	cc := rule.ClusterConfig
	allot, need, final := c.batch(ls, rule.Count, cc.ThresholdType, cc.WindowIntervalMs, acquire)
	_, err := c.ask(ctx, cc.ThresholdType, cc.WindowIntervalMs, cc.ResourceTimeout, cc.FallbackToLocalWhenFail, false,
		[]leaseAsk{{ls: ls, key: c.leaseKey(cc.FlowID), count: rule.Count, allot: allot, need: need, final: final}})
	return err
}

// ask runs the lease script for asks, one round trip, installs each
// grant that has a lease to go to, and returns the tokens granted to each
// ask. report: the asks report their demand, and take the fleet's. A lease's deadline is the window's end measured from when the
// request was sent: the script ran after that, so the tokens die no later
// than the window on Redis's clock.
func (c *Client) ask(ctx context.Context, thresholdType, windowMs int, timeoutMs int64, fallback, report bool, asks []leaseAsk) ([]int64, error) {
	if windowMs <= 0 {
		windowMs = flow.DefaultClusterWindowIntervalMs
	}
	keys := make([]string, 1, 1+len(asks))
	keys[0] = c.instancesKey
	args := make([]any, 3, 3+4*len(asks))
	args[0], args[1], args[2] = thresholdType, windowMs, ""
	if report {
		args[2] = c.cfg.InstanceID
	}
	for _, a := range asks {
		keys = append(keys, a.key)
		args = append(args, formatCount(a.count), formatCount(a.allot), a.need, a.demand)
	}
	const per = 9 // granted, µs left, threshold, window start, tokens left, wanted, fleet's demand, its reporters, raised sum
	reply := make([]int64, per*len(asks))
	sent := mono()
	err := c.eval(ctx, leaseScript, keys, args, timeoutMs, fallback, func(res []any) error {
		if len(res) != len(reply) {
			return fmt.Errorf("cluster: unexpected reply of %d values from the lease script, want %d", len(res), len(reply))
		}
		for i := range reply {
			v, ok := res[i].(int64)
			if !ok {
				return fmt.Errorf("cluster: unexpected reply %#v from the lease script", res[i])
			}
			reply[i] = v
		}
		for i, a := range asks {
			r := reply[per*i:]
			if r[5] < a.need || r[0] < 0 || r[0] > r[5] || r[1] <= 0 || r[1] > int64(windowMs)*1000 {
				return fmt.Errorf("cluster: unexpected reply %v from the lease script", r[:per])
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	recv := mono()
	c.leaseCalls.Add(1)
	granted := make([]int64, len(asks))
	for i, a := range asks {
		r := reply[per*i:]
		granted[i] = r[0]
		if a.ls != nil && report && r[6] > 0 && !c.recentlyRecovered(windowMs) {
			perSecond := 1000 / float64(windowMs)
			a.ls.seeFleet(float64(a.demand)*perSecond, float64(r[6])*perSecond, r[7], float64(r[8])*perSecond)
		}
		if a.ls != nil {
			left := r[1] * int64(time.Microsecond)
			a.ls.install(r[0], sent+left, recv+left, r[2], r[3], int64(windowMs), r[5], a.final || r[0] < r[5] || r[4] <= 0)
		}
	}
	return granted, nil
}

// install adds a grant for the window starting at window (Redis ms) to
// the lease in force, or makes it the lease in force when it is a newer
// window (of windowMs). deadline and ends bound the window's end on
// Redis's clock from below and above (mono ns). spent: Redis has no more tokens in this
// window for anyone, or the grant was the instance's final share of it,
// so calls past these are refused without asking again. A grant for a
// window older than the lease in force (a slow request) is dropped: its
// tokens die unused.
func (ls *leases) install(granted, deadline, ends, threshold, window, windowMs, want int64, spent bool) {
	ls.installMu.Lock()
	defer ls.installMu.Unlock()
	cur := ls.cur.Load()
	switch {
	case cur != nil && cur.window == window:
		// Each grant's deadline is a safe bound on the window's end; the
		// later one is the better.
		if deadline > cur.deadline.Load() {
			cur.deadline.Store(deadline)
		}
		if ends < cur.ends.Load() {
			cur.ends.Store(ends)
		}
		cur.tokens.Add(granted)
		if spent {
			cur.exhausted.Store(true)
		}
	case cur == nil || window > cur.window:
		l := &lease{window: window, threshold: threshold, low: want / 4}
		l.deadline.Store(deadline)
		l.ends.Store(ends)
		l.tokens.Store(granted)
		l.exhausted.Store(spent)
		asked := ls.asked.Load()
		n := asked - ls.windowAsked.Swap(asked)
		if cur != nil && window-cur.window > windowMs {
			// Windows without a lease (idle, or Redis down) went by: the
			// demand of one window, not of them all.
			n = n * windowMs / (window - cur.window)
		}
		ls.lastWindow.Store(n)
		ls.cur.Store(l)
	}
}

// giveBack returns the unused tokens of this client's flow leases to
// their windows in one round trip (Close), so that the other instances
// can still spend them in this window. Hot-parameter values' leases are
// left to die with their windows: there may be MaxParamLeases of them.
func (c *Client) giveBack(ctx context.Context) {
	var keys []string
	var args []any
	now := mono()
	for id, ls := range ptrMap(c.leases.Load()) {
		l := ls.cur.Load()
		if l == nil || now >= l.deadline.Load() {
			continue
		}
		if n := l.tokens.Swap(0); n > 0 {
			keys = append(keys, c.leaseKey(id))
			args = append(args, n, l.window)
		}
	}
	if len(keys) > 0 {
		returnScript.Run(ctx, c.rdb, keys, args...)
	}
}
