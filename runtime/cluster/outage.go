package cluster

import (
	"github.com/sentinelgen/sentinelgen/internal/redislog"
)

// outageImpact is what the log, metrics and the dashboard say cluster
// rules do while Redis does not answer.
const outageImpact = "cluster rules are checked locally (fallbackToLocalWhenFail) or blocked"

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
