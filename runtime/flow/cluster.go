package flow

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// ClusterChecker counts cluster rules across every instance of a service
// (Java's token client). Package runtime/cluster provides one on Redis.
//
// Check asks whether acquire more calls of rule's clusterConfig.flowId may
// pass now, cluster-wide, and counts them when they may. It must return
// within the rule's clusterConfig.resourceTimeout and honour ctx; an
// error means "no answer" (Redis down, slow, breaker open): the flow slot
// then checks the rule locally when fallbackToLocalWhenFail is set, and
// blocks the call otherwise. The local check is against the rule's count,
// unless the error is (or wraps) a *LocalCount, which says which count
// applies: this instance's share of a fleet's global count, say. Admitted
// with a *LocalCount error means the cluster admitted the call and the
// local check against that count decides too.
type ClusterChecker interface {
	Check(ctx context.Context, rule *Rule, acquire int64) (admitted bool, err error)
}

// LocalFirst is implemented by a ClusterChecker whose count misses, for
// a while, calls instances admitted locally (runtime/cluster: the window
// an outage ended in). While LocalFirst returns a count, a call must pass
// the local check against that count before the cluster is asked, so a
// call the local check refuses takes nothing from the cluster's count.
type LocalFirst interface {
	LocalFirst(rule *Rule) (count float64, ok bool)
}

// clusterHolder wraps the checker so an atomic.Pointer can hold an
// interface value.
type clusterHolder struct{ c ClusterChecker }

var clusterChecker atomic.Pointer[clusterHolder]

// SetClusterChecker makes c count the QPS rules with clusterMode set; nil
// goes back to local checking (Java's behaviour without a token server).
// Resources are rebound, so the change applies to the next call.
func SetClusterChecker(c ClusterChecker) {
	if c == nil {
		clusterChecker.Store(nil)
	} else {
		clusterChecker.Store(&clusterHolder{c: c})
	}
	runtime.RulesChanged()
}

// boundCluster returns the checker a rule bound now consults, or nil: only
// QPS cluster rules go to the cluster (thread-grade cluster rules need
// Java's concurrent token protocol, which the Redis client does not
// implement; they keep the local behaviour).
func boundCluster(rule *Rule) ClusterChecker {
	if !rule.ClusterMode || rule.Grade != GradeQPS || rule.ClusterConfig == nil {
		return nil
	}
	if h := clusterChecker.Load(); h != nil {
		return h.c
	}
	return nil
}

// passCluster is Java's passClusterCheck with its fallbackToLocalOrPass:
// the cluster's answer when there is one, else the local check (fallback
// on) or a block (fallback off).
func (br *boundRule) passCluster(c *runtime.Call, acquire int64) bool {
	if lf, isLF := br.cluster.(LocalFirst); isLF {
		if count, first := lf.LocalFirst(br.rule); first && !br.passLocalCount(c, acquire, count) {
			return false
		}
	}
	ok, err := br.cluster.Check(c.Context(), br.rule, acquire)
	if err == nil {
		return ok
	}
	var lc *LocalCount
	hasCount := errors.As(err, &lc)
	if ok && hasCount {
		// Admitted by the cluster, which asks the local check too (the
		// window an outage ended in: the cluster did not count what was
		// admitted locally in it).
		return br.passLocalCount(c, acquire, lc.Count)
	}
	if !br.rule.ClusterConfig.FallbackToLocalWhenFail {
		return false
	}
	if hasCount && lc.Count != br.count {
		return br.passLocalCount(c, acquire, lc.Count)
	}
	return br.passLocal(c, acquire)
}
