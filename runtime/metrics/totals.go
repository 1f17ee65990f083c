package metrics

import "github.com/sentinelgen/sentinelgen/runtime/stat"

// The runtime keeps sliding windows, not monotonic totals: each resource's
// ClusterNode has a minute of per-second counts (History), rewritten as time
// goes round. Prometheus wants counters that only grow. The collector makes
// them at scrape time, with no work on the calls' path:
//
//   - A second of the history is folded into the resource's running
//     total exactly once, when it has settled: settleMs after its second
//     ended (a call's pass is counted in the bucket of its start, which a
//     throttled call reaches only after its queueing wait).
//   - Until then the bucket is pending: each scrape reads it again and adds
//     its live value to the total it reports, so a counter includes the
//     current second's calls.
//   - A folded bucket is never read again: the collector remembers the
//     start of the newest folded bucket, and every bucket at or before it
//     is in the total.
//   - A pending bucket the ring dropped before it settled (scrapes further
//     apart than a minute) is folded with the value last read.
//
// So a reported value is (folded buckets) + (pending buckets as now), and
// each bucket's share only grows: pending reads grow with the bucket, and
// the folded value is the last read. Counters are exact when something
// scrapes (or calls Collector.Fold) at least every 60 s - settle = 55 s
// and no call is counted more than settle after its start; otherwise they
// undercount the calls they could not see, and still never go down.

// settleMs is how long after its second ends a bucket is still read again
// before it is folded: the longest a call's counting may lag its start
// (flow's rate limiter queues a call for maxQueueingTimeMs, 500 ms by
// default, and counts it at its start).
const settleMs = 5000

// counts is a resource's totals of each event.
type counts struct {
	pass, block, success, errors, rtMs int64
}

func (c *counts) add(b *stat.Counts) {
	c.pass += b.Pass
	c.block += b.Block
	c.success += b.Success
	c.errors += b.Exception
	c.rtMs += b.RT
}

// totals accumulates one window's buckets into monotonic counts.
type totals struct {
	folded  counts
	through int64         // start of the newest folded bucket
	pending []stat.Counts // buckets after through, as last read, oldest first
	started bool
}

// update reads the window's buckets at now (oldest first, as
// stat.Window.Buckets returns them), folds the settled ones, and returns the
// counts to report.
func (t *totals) update(buckets []stat.Counts, now int64) counts {
	if !t.started {
		t.started = true
		t.through = -1 << 63
	}
	// Refresh the pending buckets with the ring's current values; a bucket
	// the ring no longer holds keeps the value last read.
	present := t.pending[:0:0]
	for i := range buckets {
		b := &buckets[i]
		if b.Start <= t.through {
			continue
		}
		present = append(present, *b)
	}
	merged := mergePending(t.pending, present)

	// Fold what settled or left the ring, oldest first.
	keep := merged[:0]
	for _, b := range merged {
		if b.Start+1000+settleMs <= now || !holds(present, b.Start) {
			t.folded.add(&b)
			t.through = max(t.through, b.Start)
			continue
		}
		keep = append(keep, b)
	}
	t.pending = keep

	out := t.folded
	for i := range t.pending {
		out.add(&t.pending[i])
	}
	return out
}

// mergePending returns the union of the buckets last read and those read
// now, by start, oldest first; for a bucket in both, the larger value of
// each count (they only grow, but a read is not atomic across stripes).
func mergePending(last, now []stat.Counts) []stat.Counts {
	out := make([]stat.Counts, 0, len(last)+len(now))
	i, j := 0, 0
	for i < len(last) || j < len(now) {
		switch {
		case j == len(now) || (i < len(last) && last[i].Start < now[j].Start):
			out = append(out, last[i])
			i++
		case i == len(last) || now[j].Start < last[i].Start:
			out = append(out, now[j])
			j++
		default:
			a, b := last[i], now[j]
			out = append(out, stat.Counts{
				Start:     b.Start,
				Pass:      max(a.Pass, b.Pass),
				Block:     max(a.Block, b.Block),
				Success:   max(a.Success, b.Success),
				Exception: max(a.Exception, b.Exception),
				RT:        max(a.RT, b.RT),
				MinRT:     b.MinRT,
			})
			i++
			j++
		}
	}
	return out
}

func holds(bs []stat.Counts, start int64) bool {
	for i := range bs {
		if bs[i].Start == start {
			return true
		}
	}
	return false
}
