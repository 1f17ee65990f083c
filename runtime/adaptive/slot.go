package adaptive

import (
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
)

func init() {
	runtime.RegisterSlot("AdaptiveSlot", runtime.OrderAdaptive, slot{})
}

// slot binds a resource's limiter.
type slot struct{}

func (slot) Bind(r *runtime.Resource) runtime.Checker {
	s := current.Load()
	if s == nil {
		return nil
	}
	if l := s.limiters[r.Name()]; l != nil {
		return l
	}
	return nil
}

// NamesResource reports whether a rule names resource
// (runtime.ResourceNamer).
func (slot) NamesResource(name string) runtime.Naming {
	if s := current.Load(); s != nil && s.limiters[name] != nil {
		return runtime.NamedExactly
	}
	return runtime.NotNamed
}

// pollInterval is how often a call waiting for a slot looks for one.
const pollInterval = time.Millisecond

// Check admits the call if a slot is free; over the limit it waits up to
// MaxQueueingTimeMs for one, then is refused with runtime.BlockAdaptive,
// the rule, and the limit as the triggered value.
func (l *limiter) Check(c *runtime.Call) *runtime.BlockError {
	r := l.rule.Load()
	start := c.StartMillis()
	if r.DryRun {
		n := l.inFlight.Add(1)
		l.notePeak(n)
		if l.probing.Load() && start > l.probeFrom.Load() {
			l.probeInFlight.Add(1) // as acquire would: Exit counts it out
		}
		// A probe's floor is not a limit the rule would keep: it would
		// refuse calls above it only to measure, which a dry run cannot.
		if n > l.limit.Load() && !l.probing.Load() {
			runtime.CountDryRunBlock(c, runtime.BlockAdaptive, r)
		}
		return nil
	}
	if l.acquire(start) {
		return nil
	}
	if r.MaxQueueingTimeMs > 0 {
		deadline := c.NowMillis() + int64(r.MaxQueueingTimeMs)
		for c.NowMillis() < deadline {
			if c.Sleep(pollInterval) != nil {
				break // the caller gave up
			}
			if l.acquire(start) {
				return nil
			}
		}
	}
	return c.Block(runtime.BlockAdaptive, r, l.shownLimit())
}

// Exit gives the call's slot back and learns from its response time,
// unless a later slot refused it or a check made it wait: a wait is not
// the resource's work, and learning from it would make the limiter chase
// its own queue.
func (l *limiter) Exit(c *runtime.Call) {
	rt := int64(-1)
	if c.BlockError() == nil && !c.Waited() {
		rt = c.ExitMillis() - c.StartMillis()
	}
	l.release(c.StartMillis(), rt, c.ExitMillis(), c.Stripe())
}
