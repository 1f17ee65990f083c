package flow

import (
	"math"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// warmUp is Java's WarmUpController, a token bucket after Guava's
// SmoothWarmingUp: while many tokens are stored (the resource has been
// idle), the admitted rate is low, count/coldFactor at the coldest; as
// traffic drains the bucket the rate climbs to count over the warm-up
// period. Java's int and long casts are kept, because they decide the
// token figures (count 10, period 10, cold factor 3: warningToken 50,
// maxToken 100, slope 0.004).
type warmUp struct {
	count        float64
	coldFactor   int32
	warningToken int32
	maxToken     int32
	slope        float64

	// storedTokens and lastFilledTime start at 0: the first sync fills
	// the bucket to maxToken, so a new rule starts fully cold, as in Java.
	storedTokens   atomic.Int64
	lastFilledTime atomic.Int64
}

func newWarmUp(count float64, warmUpPeriodSec, coldFactor int) *warmUp {
	w := &warmUp{count: count, coldFactor: int32(coldFactor)}
	period := float64(warmUpPeriodSec)
	// warningToken = (int)(warmUpPeriodInSec * count) / (coldFactor - 1)
	w.warningToken = javaInt(period*count) / (int32(coldFactor) - 1)
	// maxToken = warningToken + (int)(2 * warmUpPeriodInSec * count / (1.0 + coldFactor)),
	// in Java's wrapping int arithmetic (2 * warmUpPeriodInSec is an int).
	twicePeriod := float64(2 * int32(warmUpPeriodSec))
	w.maxToken = w.warningToken + javaInt(twicePeriod*count/(1.0+float64(coldFactor)))
	// slope = (coldFactor - 1.0) / count / (maxToken - warningToken)
	w.slope = (float64(coldFactor) - 1.0) / count / float64(w.maxToken-w.warningToken)
	return w
}

// pass is WarmUpController.canPass on the selected node.
func (w *warmUp) pass(node *stat.Node, now, acquire int64) bool {
	passQPS := javaLong(node.PassQPS(now))
	w.syncToken(now, javaLong(node.PreviousPassQPS(now)))
	rest := w.storedTokens.Load()
	if rest >= int64(w.warningToken) {
		return float64(passQPS+acquire) <= w.warningQPS(rest)
	}
	return float64(passQPS+acquire) <= w.count
}

// warningQPS is the admitted rate with rest tokens stored above the
// warning line: Math.nextUp(1.0 / (aboveToken * slope + 1.0 / count)).
func (w *warmUp) warningQPS(rest int64) float64 {
	above := rest - int64(w.warningToken)
	return math.Nextafter(1.0/(float64(above)*w.slope+1.0/w.count), math.Inf(1))
}

// syncToken refills the bucket once per second from the previous second's
// pass count (Java's syncToken, races included: of concurrent syncs in one
// second, one wins the compare-and-swap).
func (w *warmUp) syncToken(now, previousQPS int64) {
	sec := now - now%1000
	if sec <= w.lastFilledTime.Load() {
		return
	}
	old := w.storedTokens.Load()
	next := w.coolDownTokens(sec, previousQPS)
	if w.storedTokens.CompareAndSwap(old, next) {
		if v := w.storedTokens.Add(-previousQPS); v < 0 {
			w.storedTokens.Store(0)
		}
		w.lastFilledTime.Store(sec)
	}
}

// coolDownTokens adds count tokens per elapsed second while the bucket is
// below the warning line, or above it while traffic is under the cold
// rate ((int)count / coldFactor), capped at maxToken.
func (w *warmUp) coolDownTokens(sec, previousQPS int64) int64 {
	old := w.storedTokens.Load()
	next := old
	refill := func() int64 {
		return javaLong(float64(old) + float64(sec-w.lastFilledTime.Load())*w.count/1000)
	}
	if old < int64(w.warningToken) {
		next = refill()
	} else if old > int64(w.warningToken) {
		if previousQPS < int64(javaInt(w.count)/w.coldFactor) {
			next = refill()
		}
	}
	return min(next, int64(w.maxToken))
}
