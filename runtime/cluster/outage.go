package cluster

import (
	"time"

	"github.com/sentinelgen/sentinelgen/internal/redislog"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// outageImpact is what the log, metrics and the dashboard say cluster
// rules do while Redis does not answer.
const outageImpact = "cluster rules are checked locally (fallbackToLocalWhenFail; a global count is shared by the live instances as their demand was) or blocked"

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
	c.recoveredRedis.Store(time.Now().UnixMilli() + c.redisOffset.Load())
	c.recoveredMono.Store(mono())
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
// global count (fallbackCount), a per-instance count as it is.
func (c *Client) localCount(ls *leases, rule *flow.Rule) float64 {
	if rule.ClusterConfig.ThresholdType == thresholdGlobal {
		return c.fallbackCount(&ls.demand, rule.Count)
	}
	return rule.Count
}

// recovering reports whether the last outage ended in the window that is
// current now, on Redis's clock as the heartbeats placed it
// (windowIntervalMs; Java's 1000 when 0). Until that window ends, Redis's
// count misses what the fallback admitted in it (this instance's, and
// that of instances whose probe has not answered yet), so the local check
// must pass too; from the next window on Redis counts alone. It reads
// only the monotonic clock, as leased calls do.
func (c *Client) recovering(windowMs int) bool {
	at := c.recoveredMono.Load()
	if at == 0 {
		return false
	}
	if windowMs <= 0 {
		windowMs = flow.DefaultClusterWindowIntervalMs
	}
	w := int64(windowMs)
	redisAt := c.recoveredRedis.Load()
	end := redisAt + w - redisAt%w + recoverySlackMs
	return redisAt+(mono()-at)/int64(time.Millisecond) < end
}

// recoverySlackMs is how long past the window's end, as heartbeats place
// it, recovering still holds: Redis's clock is placed to within half a
// heartbeat's round trip and a ms of rounding, and ending early would let
// Redis alone decide in what is left of a window whose fallback
// admissions it never counted. Ending late only checks the local share in
// the first ms of the next window too.
const recoverySlackMs = 5

// recentlyRecovered reports whether the last outage ended less than two
// windows ago: a Redis that restarted empty hears the instances' demand
// for a value one lease request at a time, so the shares kept from before
// the outage stand until every instance has asked again.
func (c *Client) recentlyRecovered(windowMs int) bool {
	at := c.recoveredMono.Load()
	return at != 0 && mono()-at < 2*int64(windowMs)*int64(time.Millisecond)
}

// LocalFirst says whether a call of rule must pass the local check
// against count before Redis is asked (flow.LocalFirst): in the window an
// outage ended in, for a rule that falls back to its local check. Checked
// first, a call the local share refuses takes nothing from Redis's count,
// which the rest of the fleet would then miss.
func (c *Client) LocalFirst(rule *flow.Rule) (count float64, ok bool) {
	cc := rule.ClusterConfig
	if cc == nil || !cc.FallbackToLocalWhenFail || !c.recovering(cc.WindowIntervalMs) {
		return 0, false
	}
	return c.localCount(c.leasesOf(cc.FlowID), rule), true
}
