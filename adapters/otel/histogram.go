package sentinelotel

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// NewProducer returns the producer of the response-time histograms of the
// resources whose histogram is on (runtime.EnableRTHistogram), for an SDK
// reader:
//
//	reader := sdkmetric.NewPeriodicReader(exporter, sdkmetric.WithProducer(sentinelotel.NewProducer()))
//
// Each is the histogram sentinel.resource.call.duration (unit s,
// attribute sentinel.resource), cumulative, with the runtime's microsecond
// bounds in seconds (25 µs to 10 s). It reads the runtime's buckets when
// the reader collects; OpenTelemetry's API has no observable histogram, so
// a producer, a part of the SDK, is how counts kept elsewhere become one.
func NewProducer() sdkmetric.Producer {
	return &producer{start: map[*runtime.Resource]time.Time{}}
}

type producer struct {
	mu sync.Mutex
	// start is when the producer first saw each histogram: the series'
	// start time. Resources are bounded (runtime.MaxResources), so is it.
	start map[*runtime.Resource]time.Time
}

func (p *producer) Produce(context.Context) ([]metricdata.ScopeMetrics, error) {
	now := time.Now()
	var points []metricdata.HistogramDataPoint[float64]
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range runtime.Resources() {
		h, ok := r.RTHistogram()
		if !ok {
			continue
		}
		start, seen := p.start[r]
		if !seen {
			start = now
			p.start[r] = start
		}
		points = append(points, histogramPoint(h, safetext.Label(r.Name()), start, now))
	}
	if len(points) == 0 {
		return nil, nil
	}
	return []metricdata.ScopeMetrics{{
		Scope: instrumentation.Scope{Name: scopeName},
		Metrics: []metricdata.Metrics{{
			Name:        histogramInstrument,
			Description: "Response times of completed calls, per resource whose histogram is on; counts calls, not batch tokens.",
			Unit:        "s",
			Data: metricdata.Histogram[float64]{
				Temporality: metricdata.CumulativeTemporality,
				DataPoints:  points,
			},
		}},
	}}, nil
}

func histogramPoint(h runtime.RTHistogram, resource string, start, now time.Time) metricdata.HistogramDataPoint[float64] {
	bounds := make([]float64, len(h.Bounds))
	for i, b := range h.Bounds {
		bounds[i] = float64(b) / 1e6
	}
	counts := make([]uint64, len(h.Counts))
	for i, n := range h.Counts {
		counts[i] = uint64(n)
	}
	return metricdata.HistogramDataPoint[float64]{
		Attributes:   attribute.NewSet(AttrResource.String(resource)),
		StartTime:    start,
		Time:         now,
		Count:        uint64(h.Count),
		Bounds:       bounds,
		BucketCounts: counts,
		Sum:          float64(h.SumMicros) / 1e6,
	}
}
