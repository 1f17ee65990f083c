package paramflow

import (
	"context"
	"errors"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// ClusterChecker counts cluster hot-parameter rules across every instance
// of a service (Java's requestParamToken). Package runtime/cluster
// provides one on Redis.
//
// CheckParams asks whether acquire more calls may pass now for every
// value, cluster-wide, each within its own Count (the item's count or the
// rule's, per instance or global as clusterConfig.thresholdType says),
// and counts them for every value when, and only when, all may. It must
// honour ctx and return promptly; an error means "no answer": the rule is
// then checked locally when fallbackToLocalWhenFail is set, and the call
// blocked otherwise.
type ClusterChecker interface {
	CheckParams(ctx context.Context, rule *Rule, values []ClusterValue, acquire int64) (admitted bool, err error)
}

// ErrCheckLocally, returned (or wrapped) by a ClusterChecker, declines to
// count a call cluster-wide, such as one with more values than the checker
// sends to its server in one request: the call is then checked by the
// rule locally, whatever fallbackToLocalWhenFail says (the cluster did not
// fail; it was not asked).
var ErrCheckLocally = errors.New("paramflow: call checked locally")

// LocalCounts is a ClusterChecker's "no answer" that also says which
// count each value's local check is against (CheckParams returns it, or an
// error wrapping it): Counts[i] for the i-th value it was given, such as
// this instance's share of a value's fleet-wide count (package
// runtime/cluster returns it for a thresholdType 1 rule while Redis does
// not answer). A negative count keeps the value's own. Returned with
// admitted true, the cluster counted the call but the local check against
// Counts decides (runtime/cluster, in the window an outage ended in, whose
// local admissions Redis never saw).
type LocalCounts struct {
	Counts []int64
	Err    error // why the cluster did not answer
}

func (e *LocalCounts) Error() string {
	if e.Err == nil {
		return "paramflow: cluster check not answered; checked locally"
	}
	return e.Err.Error()
}

func (e *LocalCounts) Unwrap() error { return e.Err }

// ClusterValue is one argument value of a call under a cluster rule.
type ClusterValue struct {
	// Key is the value as text, the same in every process: "i:42" for
	// integers, "u:…" for unsigned integers above MaxInt64, "f:2.5",
	// "b:true", "s:" followed by the string.
	Key string
	// Count is the value's threshold: its item's count, or the rule's.
	Count int64
}

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

// boundCluster is the checker a rule bound now consults, or nil: only QPS
// cluster rules go to the cluster (Java's cluster mode is QPS only).
func boundCluster(cr *compiledRule) ClusterChecker {
	r := cr.rule
	if !r.ClusterMode || r.Grade != GradeQPS || r.ClusterConfig == nil {
		return nil
	}
	if h := clusterChecker.Load(); h != nil {
		return h.c
	}
	return nil
}

// clusterVerdict is what the cluster said about a call.
type clusterVerdict uint8

const (
	clusterPass clusterVerdict = iota
	clusterBlock
	clusterLocal // no answer, and the rule falls back to its local check
)

// passCluster asks the cluster about the call's values of b's argument.
// Values with no text that another process could share (pointers,
// channels, plain structs) cannot be counted cluster-wide: such a call is
// checked locally (or blocked without fallback), as if the cluster had not
// answered. With clusterLocal, counts (when not nil) are the counts the
// local check applies to keys, one each (see LocalCounts).
func (b *bound) passCluster(c *runtime.Call, keys []key) (v clusterVerdict, counts []int64) {
	fallback := clusterLocal
	if !b.rule.ClusterConfig.FallbackToLocalWhenFail {
		fallback = clusterBlock
	}
	values := make([]ClusterValue, 0, len(keys))
	for _, k := range keys {
		text, ok := k.portable()
		if !ok {
			return fallback, nil
		}
		values = append(values, ClusterValue{Key: text, Count: b.limitFor(k)})
	}
	if len(values) == 0 {
		return clusterPass, nil
	}
	ok, err := b.cluster.CheckParams(c.Context(), b.rule, values, c.BatchCount())
	var lc *LocalCounts
	switch {
	case err != nil && errors.Is(err, ErrCheckLocally):
		return clusterLocal, nil
	case err != nil && fallback == clusterLocal && errors.As(err, &lc) && len(lc.Counts) == len(keys):
		return clusterLocal, lc.Counts
	case err != nil:
		return fallback, nil
	case ok:
		return clusterPass, nil
	}
	return clusterBlock, nil
}

// portable is the key as text every process derives alike.
func (k key) portable() (string, bool) {
	switch k.kind {
	case kindInt:
		return "i:" + strconv.FormatInt(int64(k.n), 10), true
	case kindUint:
		return "u:" + strconv.FormatUint(k.n, 10), true
	case kindFloat:
		return "f:" + strconv.FormatFloat(math.Float64frombits(k.n), 'g', -1, 64), true
	case kindBool:
		return "b:" + strconv.FormatBool(k.n == 1), true
	case kindString:
		return "s:" + k.s, true
	}
	return "", false
}
