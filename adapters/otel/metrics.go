package sentinelotel

import (
	"context"
	"errors"
	"math"
	"regexp"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/sentinelgen/sentinelgen/runtime/metrics"
)

// scopeName is the instrumentation scope of the meter and the tracer.
const scopeName = "github.com/sentinelgen/sentinelgen/adapters/otel"

// foldInterval is how often Metrics folds the runtime's settled seconds
// into its counters between collections: the counters are exact while
// that happens at least every 55 s (see package runtime/metrics), and
// OpenTelemetry's periodic reader collects every 60 s by default.
const foldInterval = 30 * time.Second

// Metrics is the registration of the runtime's figures on a
// MeterProvider; Unregister ends it.
type Metrics struct {
	collector *metrics.Collector
	reg       metric.Registration
	stop      chan struct{}
	done      chan struct{}
	once      sync.Once
}

// RegisterMetrics exports every figure of package runtime/metrics's
// Prometheus collector (made with opts: WithSource, WithOrigins,
// WithRuleKind) as observable instruments of a meter of mp: they are read
// when mp's readers collect, from the counters the runtime keeps anyway,
// so calls do no work for them. The names follow OpenTelemetry's semantic
// conventions (see the package doc for the list); response-time
// histograms come from NewProducer instead, as OpenTelemetry has no
// observable histogram.
//
// Unregister the returned Metrics to stop.
func RegisterMetrics(mp metric.MeterProvider, opts ...metrics.Option) (*Metrics, error) {
	c := metrics.NewCollector(opts...)
	reg := prometheus.NewRegistry()
	if err := reg.Register(c); err != nil {
		return nil, err
	}
	meter := mp.Meter(scopeName)
	observers := map[string]observer{}
	var observables []metric.Observable
	for _, family := range familyNames(c) {
		if family == histogramFamily {
			continue
		}
		in, ok := families[family]
		if !ok {
			in = derivedInstrument(family)
		}
		ob, err := newObserver(meter, in)
		if err != nil {
			return nil, err
		}
		observers[family] = ob
		observables = append(observables, ob.instrument)
	}
	registration, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		return observe(reg, observers, o)
	}, observables...)
	if err != nil {
		return nil, err
	}
	m := &Metrics{collector: c, reg: registration, stop: make(chan struct{}), done: make(chan struct{})}
	go m.fold()
	return m, nil
}

// Unregister stops the export; it is idempotent.
func (m *Metrics) Unregister() error {
	var err error
	m.once.Do(func() {
		close(m.stop)
		<-m.done
		err = m.reg.Unregister()
	})
	return err
}

func (m *Metrics) fold() {
	defer close(m.done)
	t := time.NewTicker(foldInterval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.collector.Fold()
		}
	}
}

// fqName finds a family's name in a Desc's String (the client library
// offers no accessor; the format has been stable since its first release).
var fqName = regexp.MustCompile(`^Desc\{fqName: "([^"]+)"`)

// familyNames are the families c describes.
func familyNames(c prometheus.Collector) []string {
	ch := make(chan *prometheus.Desc)
	go func() {
		c.Describe(ch)
		close(ch)
	}()
	var names []string
	for d := range ch {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			names = append(names, m[1])
		}
	}
	return names
}

// observer observes one family's series on its instrument.
type observer struct {
	instrument metric.Observable
	observe    func(o metric.Observer, v float64, attrs attribute.Set)
	spec       instrument
}

func newObserver(meter metric.Meter, in instrument) (observer, error) {
	var err error
	var ob observer
	if in.float {
		var inst metric.Float64Observable
		switch in.kind {
		case counter, sumOfTime:
			inst, err = meter.Float64ObservableCounter(in.name, metric.WithUnit(in.unit))
		case upDown:
			inst, err = meter.Float64ObservableUpDownCounter(in.name, metric.WithUnit(in.unit))
		default:
			inst, err = meter.Float64ObservableGauge(in.name, metric.WithUnit(in.unit))
		}
		ob = observer{inst, func(o metric.Observer, v float64, attrs attribute.Set) {
			o.ObserveFloat64(inst, v, metric.WithAttributeSet(attrs))
		}, in}
	} else {
		var inst metric.Int64Observable
		switch in.kind {
		case counter, sumOfTime:
			inst, err = meter.Int64ObservableCounter(in.name, metric.WithUnit(in.unit))
		case upDown:
			inst, err = meter.Int64ObservableUpDownCounter(in.name, metric.WithUnit(in.unit))
		default:
			inst, err = meter.Int64ObservableGauge(in.name, metric.WithUnit(in.unit))
		}
		ob = observer{inst, func(o metric.Observer, v float64, attrs attribute.Set) {
			o.ObserveInt64(inst, int64(math.Round(v)), metric.WithAttributeSet(attrs))
		}, in}
	}
	return ob, err
}

// observe gathers the collector once and observes every series.
func observe(g prometheus.Gatherer, observers map[string]observer, o metric.Observer) error {
	mfs, err := g.Gather()
	for _, mf := range mfs {
		ob, ok := observers[mf.GetName()]
		if !ok {
			continue // the histogram: NewProducer's
		}
		for _, m := range mf.GetMetric() {
			v, ok := value(m)
			if !ok {
				continue
			}
			ob.observe(o, v, ob.spec.attributes(m))
		}
	}
	if err != nil {
		return errors.Join(errors.New("sentinelotel: gathering the runtime's figures"), err)
	}
	return nil
}

// value is a series' value: a counter's, a gauge's, a summary's sum.
func value(m *dto.Metric) (float64, bool) {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue(), true
	case m.Gauge != nil:
		return m.GetGauge().GetValue(), true
	case m.Summary != nil:
		return m.GetSummary().GetSampleSum(), true
	case m.Untyped != nil:
		return m.GetUntyped().GetValue(), true
	}
	return 0, false
}

func (in instrument) attributes(m *dto.Metric) attribute.Set {
	labels := m.GetLabel()
	kvs := make([]attribute.KeyValue, len(labels))
	for i, l := range labels {
		kvs[i] = in.attributeKey(l.GetName()).String(l.GetValue())
	}
	return attribute.NewSet(kvs...)
}
