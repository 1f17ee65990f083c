package cluster

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
)

// MaxParamLeases is the most argument values one client holds leases for
// at a time. Values come from callers: past the cap, a value with no lease
// costs a round trip per call, which asks the lease script for just the
// call's tokens, so that it counts against the same fleet-wide figure as
// the leases other instances hold for the value (expired leases are swept
// out at most once a second to make room).
const MaxParamLeases = 10_000

// paramLeases is the lease state of hot-parameter values, by Redis key.
type paramLeases struct {
	mu     sync.RWMutex
	m      map[string]*leases
	swept  int64 // mono ns of the last sweep
	sweeps int   // for tests
}

// of is key's lease state, made if there is room; nil when the table is
// full of live leases.
func (p *paramLeases) of(key string) *leases {
	p.mu.RLock()
	ls := p.m[key]
	p.mu.RUnlock()
	if ls != nil {
		return ls
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if ls := p.m[key]; ls != nil {
		return ls
	}
	if p.m == nil {
		p.m = make(map[string]*leases)
	}
	if len(p.m) >= MaxParamLeases {
		now := mono()
		if now-p.swept < int64(time.Second) {
			return nil
		}
		p.swept = now
		p.sweeps++
		for k, ls := range p.m {
			if l := ls.cur.Load(); l == nil || now >= l.deadline.Load() {
				delete(p.m, k)
			}
		}
		if len(p.m) >= MaxParamLeases {
			return nil
		}
	}
	ls = &leases{}
	p.m[key] = ls
	return ls
}

// held is key's lease state, or nil when the table holds none.
func (p *paramLeases) held(key string) *leases {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.m[key]
}

// paramFallbackCounts is, for each value, the part of its global count
// this instance checks locally while Redis does not answer: as for a flow
// rule (fallbackCount), from the value's demand share the lease requests
// last read, or an even share when it has none (a value without a lease
// here, or a client without leases, which keeps no state per value).
// Rounded down, as a flow rule's local check rounds its share (an
// instance whose share of a small count is under one call refuses the
// value locally until Redis answers).
func (c *Client) paramFallbackCounts(flowID int64, values []paramflow.ClusterValue) []int64 {
	counts := make([]int64, len(values))
	for i, v := range values {
		d := &demand{}
		if c.cfg.Leases {
			if ls := c.params.held(c.leaseKeyOf(c.paramKey(flowID, v.Key))); ls != nil {
				d = &ls.demand
			}
		}
		counts[i] = int64(math.Floor(c.fallbackCount(d, float64(v.Count)) + 1e-9))
	}
	return counts
}

// checkParamsLeased admits a hot-parameter call from the leases of its
// values' windows, all or nothing: values with too few tokens are asked
// for in one script call, then each value's tokens are taken, and given
// back if another value has none. A value the lease table has no room for
// is asked for just the call's tokens in the same script call, spent at
// once: every value counts in its lease hash, the one fleet-wide figure
// (a value's window hash is never mixed in). Such tokens are not given
// back when another value refuses the call: under-admission, never over.
func (c *Client) checkParamsLeased(ctx context.Context, rule *paramflow.Rule, keys []string, counts []float64, needs []int64) (bool, error) {
	cc := rule.ClusterConfig
	lss := make([]*leases, len(keys))
	for i, k := range keys {
		if lss[i] = c.params.of(k); lss[i] != nil {
			lss[i].asked.Add(needs[i])
		}
	}
	var asks []leaseAsk
	unheld := map[int]int{} // value index -> its ask's, for values with no lease
	now := mono()
	for i, ls := range lss {
		if ls == nil {
			unheld[i] = len(asks)
			asks = append(asks, leaseAsk{key: keys[i], count: counts[i], need: needs[i], demand: needs[i]})
			continue
		}
		l := ls.cur.Load()
		if l != nil && now < l.deadline.Load() {
			if l.tokens.Load() >= needs[i] {
				continue
			}
			if l.exhausted.Load() {
				return false, nil
			}
		}
		allot, need, final := c.batch(ls, counts[i], cc.ThresholdType, cc.WindowIntervalMs, needs[i])
		asks = append(asks, leaseAsk{ls: ls, key: keys[i], count: counts[i], allot: allot, need: need, final: final,
			demand: max(ls.inWindow(), ls.lastWindow.Load())})
	}
	if len(lss) == 1 && lss[0] != nil && len(asks) == 1 {
		// One value, the common call: one request in flight per value,
		// as for a flow id (refill), so that callers arriving together at
		// a window's turn do not each take a batch.
		ls := lss[0]
		ls.mu.Lock()
		defer ls.mu.Unlock()
		if l := ls.cur.Load(); l != nil && mono() < l.deadline.Load() {
			if l.tokens.Load() >= needs[0] {
				asks = nil // a batch came meanwhile
			} else if l.exhausted.Load() {
				return false, nil
			}
		}
	}
	var granted []int64
	if len(asks) > 0 {
		var err error
		if granted, err = c.ask(ctx, cc.ThresholdType, cc.WindowIntervalMs, 0, cc.FallbackToLocalWhenFail, true, asks); err != nil {
			return false, err
		}
	}
	now = mono()
	taken := make([]*lease, len(lss))
	for i, ls := range lss {
		if ls == nil {
			if granted[unheld[i]] == needs[i] {
				continue
			}
		} else if l := ls.cur.Load(); l != nil && now < l.deadline.Load() && l.take(needs[i]) {
			taken[i] = l
			continue
		}
		// Give back what the call took, to the leases it took from
		// (never to a newer window's).
		for j, l := range taken[:i] {
			if l != nil {
				l.tokens.Add(needs[j])
			}
		}
		return false, nil
	}
	c.leased.Add(1)
	return true, nil
}
