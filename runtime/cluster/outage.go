package cluster

import (
	"time"

	"github.com/sentinelgen/sentinelgen/internal/redislog"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// outageImpact is what the log, metrics and the dashboard say cluster
// rules do while Redis does not answer.
const outageImpact = "cluster rules are checked locally (fallbackToLocalWhenFail; a global count is shared by the live instances) or blocked"

func init() { redislog.Install() }

// failure tells the breaker of a failed check; when that opens it, an
// outage begins: one warning through the runtime's logger, and
// runtime.Dependencies (metrics, dashboard) shows it until Redis answers.
//
// Checks in flight may open and close the breaker at once, and tell dep
// in another order than they swapped its state: each tells it under depMu
// what the breaker is by then, so that the last to tell leaves dep as the
// breaker is (never down while Redis answers, nor up while it is open).
func (c *Client) failure(probe bool, err error) {
	if !c.br.failure(probe) {
		return
	}
	c.depMu.Lock()
	defer c.depMu.Unlock()
	if !c.br.open() || c.dep.IsDown() {
		return // a success closed it meanwhile, or the outage goes on
	}
	c.outageLocal.Store(c.fellBackLocal.Load())
	c.outageBlock.Store(c.fellBackBlock.Load())
	c.dep.Down(err)
}

// success tells the breaker of an answered check; when that closes it, the
// outage ends with one info line saying how many checks the rules' fallback
// answered meanwhile.
func (c *Client) success(probe bool) {
	if !c.br.success(probe) {
		return
	}
	c.depMu.Lock()
	defer c.depMu.Unlock()
	if c.br.open() {
		return // a failure opened it again meanwhile: the outage goes on
	}
	c.recoveredAt.Store(time.Now().UnixNano())
	c.dep.Up("checkedLocally", c.fellBackLocal.Load()-c.outageLocal.Load(),
		"blocked", c.fellBackBlock.Load()-c.outageBlock.Load())
}

// unanswered counts a check Redis did not answer, by what the rule does
// then.
func (c *Client) unanswered(fallback bool) {
	if fallback {
		c.fellBackLocal.Add(1)
	} else {
		c.fellBackBlock.Add(1)
	}
}

// thresholdGlobal is clusterConfig.thresholdType 1 (Java's
// FLOW_THRESHOLD_GLOBAL): count is the fleet's.
const thresholdGlobal = 1

// share is this instance's part of a global count while Redis does not
// answer: count divided by the live instances the last heartbeat saw (at
// least one).
func (c *Client) share(count float64) float64 {
	return count / float64(max(1, c.live.Load()))
}

// seeLive takes a heartbeat's count of live instances. A higher count is
// taken at once; a lower one only once heartbeats have seen it (or less)
// for InstanceTTL: a Redis that restarts empty sees the fleet register
// again one by one, and an instance that took the 1 it saw first would
// check the whole global count locally at the next fault. A crashed
// instance stays registered for InstanceTTL anyway, so the share grows at
// most that much later. Heartbeats run on one goroutine.
func (c *Client) seeLive(n int64, now time.Time) {
	if n >= c.live.Load() {
		c.live.Store(n)
		c.lowSince = time.Time{}
		return
	}
	if c.lowSince.IsZero() {
		c.lowSince = now
	}
	if now.Sub(c.lowSince) >= c.cfg.InstanceTTL {
		c.live.Store(n)
		c.lowSince = time.Time{}
	}
}

// localCount is the count a rule's local fallback checks: the share of a
// global count, a per-instance count as it is.
func (c *Client) localCount(rule *flow.Rule) float64 {
	if rule.ClusterConfig.ThresholdType == thresholdGlobal {
		return c.share(rule.Count)
	}
	return rule.Count
}

// recovering reports whether the last outage ended less than one window
// (windowIntervalMs; Java's 1000 when 0) and one BreakerCooldown ago. Each
// instance's breaker closes at its own probe, up to a cool-down after the
// first: until every instance's local admissions are a window behind,
// Redis's count misses some, and the local check must decide too.
func (c *Client) recovering(windowMs int) bool {
	at := c.recoveredAt.Load()
	if at == 0 {
		return false
	}
	if windowMs <= 0 {
		windowMs = flow.DefaultClusterWindowIntervalMs
	}
	return time.Now().UnixNano()-at < int64(windowMs)*int64(time.Millisecond)+int64(c.cfg.BreakerCooldown)
}
