package metrics

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// Label values come from outside: resource names from URL paths, origins
// from request headers, data source paths from configuration. Prometheus
// refuses a label that is not valid UTF-8, and one bad series used to fail
// the whole scrape, every scrape after it. An emitter is one scrape's
// sender: it passes every label through safetext.Label (valid UTF-8,
// control characters escaped, at most safetext.MaxLabel bytes), sends a
// series once (two names that sanitise to the same label, such as the
// bytes "a\xff" and the text `a\xff`, would otherwise collide and fail the
// scrape: the first one collected is kept), and drops, rather than panics
// on, a series the client library refuses.
type emitter struct {
	ch   chan<- prometheus.Metric
	seen map[seriesKey]struct{}
	key  strings.Builder
}

// seriesKey is a series: its family and its label values, joined by a
// byte that no sanitised label holds.
type seriesKey struct {
	d      *prometheus.Desc
	labels string
}

func newEmitter(ch chan<- prometheus.Metric) *emitter {
	return &emitter{ch: ch, seen: make(map[seriesKey]struct{})}
}

// labels sanitises labels in place and reports whether the series of d
// with them is new in this scrape.
func (e *emitter) labels(d *prometheus.Desc, labels []string) bool {
	for i, l := range labels {
		labels[i] = safetext.Label(l)
	}
	e.key.Reset()
	for _, l := range labels {
		e.key.WriteByte(0xff) // never in a sanitised label
		e.key.WriteString(l)
	}
	k := seriesKey{d, e.key.String()}
	if _, dup := e.seen[k]; dup {
		return false
	}
	e.seen[k] = struct{}{}
	return true
}

func (e *emitter) send(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
	if !e.labels(d, labels) {
		return
	}
	if m, err := prometheus.NewConstMetric(d, t, v, labels...); err == nil {
		e.ch <- m
	}
}

func (e *emitter) summary(d *prometheus.Desc, count uint64, sum float64, labels ...string) {
	if !e.labels(d, labels) {
		return
	}
	if m, err := prometheus.NewConstSummary(d, count, sum, nil, labels...); err == nil {
		e.ch <- m
	}
}

// histogram sends a response-time histogram, its microsecond bounds in
// seconds (Prometheus's base unit) and its buckets cumulative.
func (e *emitter) histogram(d *prometheus.Desc, h runtime.RTHistogram, labels ...string) {
	if !e.labels(d, labels) {
		return
	}
	buckets := make(map[float64]uint64, len(h.Bounds))
	var cum int64
	for i, b := range h.Bounds {
		cum += h.Counts[i]
		buckets[float64(b)/1e6] = uint64(cum)
	}
	if m, err := prometheus.NewConstHistogram(d, uint64(h.Count), float64(h.SumMicros)/1e6, buckets, labels...); err == nil {
		e.ch <- m
	}
}
