package dashboard

import (
	"fmt"
	"math"
	"net/http"
	"slices"

	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// Resource is one resource as the JSON shows it: its declaration, its
// figures now, and the last minute second by second.
type Resource struct {
	Name    string       `json:"name"`
	Traffic string       `json:"traffic"`
	Type    string       `json:"type"`
	Params  []string     `json:"params,omitempty"`
	Metrics stat.Metrics `json:"metrics"`
	History *History     `json:"history,omitempty"`
	// Protected says a rule of some kind applies to the resource now
	// (runtime.Resource.Protected); false means it is only observed, its
	// calls counted and always admitted.
	Protected bool `json:"protected"`
	// Blocks counts, by kind of rule ("flow", "degrade", "system",
	// "authority", "paramflow", "adaptive", "custom"), the calls blocked
	// since the process started: the figures
	// sentinel_resource_block_by_type_total exports. A cluster rule's
	// blocks count as its kind's (flow or paramflow), as in Java. Absent
	// when there are none.
	Blocks map[string]int64 `json:"blocks,omitempty"`
	// LastBlock is the kind and rule of the latest block, absent when the
	// resource never blocked.
	LastBlock *LastBlock `json:"lastBlock,omitempty"`
	// DryRunBlocks counts, by kind of rule ("flow", "degrade", ...), the
	// calls dry-run rules would have blocked and admitted since the
	// process started; absent when there are none.
	DryRunBlocks map[string]int64 `json:"dryRunBlocks,omitempty"`
	// RTDistribution is the resource's response-time histogram, absent
	// unless it is on (runtime.EnableRTHistogram).
	RTDistribution *RTDistribution `json:"rtDistribution,omitempty"`
}

// RTDistribution is a resource's response-time histogram since it was
// turned on, in microseconds. A percentile is the upper bound of the
// bucket it falls in (at most that long); past the last bound it is -1.
type RTDistribution struct {
	Count      int64   `json:"count"`
	MeanMicros float64 `json:"meanMicros"`
	P50Micros  int64   `json:"p50Micros"`
	P90Micros  int64   `json:"p90Micros"`
	P99Micros  int64   `json:"p99Micros"`
	// BoundsMicros and Counts are the buckets (runtime.RTHistogram).
	BoundsMicros []int64 `json:"boundsMicros"`
	Counts       []int64 `json:"counts"`
}

func rtDistribution(r *runtime.Resource) *RTDistribution {
	h, ok := r.RTHistogram()
	if !ok {
		return nil
	}
	d := &RTDistribution{Count: h.Count, BoundsMicros: h.Bounds, Counts: h.Counts}
	if h.Count > 0 {
		d.MeanMicros = float64(h.SumMicros) / float64(h.Count)
	}
	d.P50Micros, d.P90Micros, d.P99Micros = percentile(h, 0.5), percentile(h, 0.9), percentile(h, 0.99)
	return d
}

// percentile is the upper bound of the bucket the q-th call falls in; 0
// without calls, -1 past the last bound.
func percentile(h runtime.RTHistogram, q float64) int64 {
	if h.Count == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.Count)))
	var cum int64
	for i, n := range h.Counts {
		cum += n
		if cum >= rank {
			if i < len(h.Bounds) {
				return h.Bounds[i]
			}
			break
		}
	}
	return -1
}

// HistorySeconds is how many whole seconds History covers: the minute
// window's span.
const HistorySeconds = stat.MinuteSampleCount

// History is a resource's last HistorySeconds whole seconds, oldest first:
// second i starts at Start + i*1000 (Unix ms). Every slice has
// HistorySeconds entries; a second without calls is 0. It is read from the
// resource's history (ClusterNode.History) when asked, so it costs no
// memory of its own.
type History struct {
	Start   int64   `json:"start"`
	Pass    []int64 `json:"pass"`
	Block   []int64 `json:"block"`
	Success []int64 `json:"success"`
	Error   []int64 `json:"error"`
	// AvgRT and MinRT are in ms, 0 for a second in which nothing completed.
	AvgRT []float64 `json:"avgRt"`
	MinRT []int64   `json:"minRt"`
}

// history reads w's whole seconds before now.
func history(seconds []stat.Counts, now int64) *History {
	const n = HistorySeconds
	start := now - now%1000 - n*1000
	h := &History{
		Start: start,
		Pass:  make([]int64, n), Block: make([]int64, n),
		Success: make([]int64, n), Error: make([]int64, n),
		AvgRT: make([]float64, n), MinRT: make([]int64, n),
	}
	for _, b := range seconds {
		i := (b.Start - start) / 1000
		if i < 0 || i >= n {
			continue // the current, unfinished second
		}
		h.Pass[i], h.Block[i], h.Success[i], h.Error[i] = b.Pass, b.Block, b.Success, b.Exception
		if b.Success > 0 {
			h.AvgRT[i] = float64(b.RT) / float64(b.Success)
			h.MinRT[i] = b.MinRT
		}
	}
	return h
}

func resourceOf(r *runtime.Resource, now int64, withHistory bool) Resource {
	spec := r.Spec()
	out := Resource{Name: safetext.Label(r.Name()), Traffic: spec.Traffic.String(), Type: spec.Type.String(), Params: spec.Params,
		Protected: r.Protected(), Blocks: byType(r.BlockCount), LastBlock: lastBlock(r),
		DryRunBlocks: byType(r.DryRunBlockCount), RTDistribution: rtDistribution(r)}
	if cn := r.ClusterNode(); cn != nil {
		out.Metrics = metricsOf(cn.Node, now)
		if withHistory {
			out.History = history(cn.History(now), now)
		}
	}
	return out
}

// metricsOf is n's figures as the JSON shows them: MinRT is 0 while nothing
// completed in the window, where Java's node reads its 5000 ms ceiling (the
// transport protocol keeps Java's figure).
func metricsOf(n *stat.Node, now int64) stat.Metrics {
	m := n.Metrics(now)
	if m.SuccessQPS == 0 {
		m.MinRT = 0
	}
	return m
}

// labelTree makes the tree's context and resource names labels
// (safetext.Label), as Resource names are.
func labelTree(n runtime.TreeNode) runtime.TreeNode {
	n.Name = safetext.Label(n.Name)
	for i := range n.Children {
		n.Children[i] = labelTree(n.Children[i])
	}
	return n
}

// MaxNames is the most distinct names one api/resources request may ask
// for; repeats of a name count once.
const MaxNames = 100

// dedupe returns names without repeats, in their first order.
func dedupe(names []string) []string {
	if len(names) < 2 {
		return names
	}
	seen := make(map[string]struct{}, min(len(names), MaxNames+1))
	out := names[:0:0]
	for _, n := range names {
		if _, ok := seen[n]; ok {
			continue
		}
		seen[n] = struct{}{}
		out = append(out, n)
		if len(out) > MaxNames {
			break // enough to refuse
		}
	}
	return out
}

// serveResources lists every resource with its figures; ?name= (repeatable)
// picks resources, ?history=1 adds each one's last minute.
func (h *Handler) serveResources(w http.ResponseWriter, r *http.Request) {
	now := runtime.NowMillis()
	q := r.URL.Query()
	names := dedupe(q["name"])
	if len(names) > MaxNames {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%d distinct names; at most %d a request", len(names), MaxNames))
		return
	}
	withHistory := q.Get("history") == "1" || q.Get("history") == "true"
	out := []Resource{}
	if len(names) > 0 {
		for _, name := range names {
			if res := runtime.LookupResource(name); res != nil {
				out = append(out, resourceOf(res, now, withHistory))
			}
		}
		if len(out) == 0 {
			writeError(w, http.StatusNotFound, "no such resource")
			return
		}
	} else {
		for _, res := range runtime.Resources() {
			out = append(out, resourceOf(res, now, withHistory))
		}
	}
	writeJSON(w, out)
}

// busiest returns the resources with calls in the last minute, the busiest
// first, at most limit of them, with their history.
func busiest(now int64, limit int) []Resource {
	out := []Resource{} // [] and not null: the page reads its length
	for _, res := range runtime.Resources() {
		cn := res.ClusterNode()
		if cn == nil {
			continue
		}
		if m := cn.Metrics(now); m.MinutePass+m.MinuteBlock == 0 && m.Threads == 0 {
			continue
		}
		out = append(out, resourceOf(res, now, true))
	}
	slices.SortStableFunc(out, func(a, b Resource) int {
		ta := a.Metrics.MinutePass + a.Metrics.MinuteBlock
		tb := b.Metrics.MinutePass + b.Metrics.MinuteBlock
		switch {
		case ta > tb:
			return -1
		case ta < tb:
			return 1
		}
		return 0
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
