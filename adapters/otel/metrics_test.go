package sentinelotel_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	sentinelotel "github.com/sentinelgen/sentinelgen/adapters/otel"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/metrics"
)

// point is one series as both sides see it: the OpenTelemetry name, the
// attributes written key=value and sorted, and the value.
type point struct {
	name  string
	attrs string
}

// otelName is the instrument a family of the Prometheus collector is
// expected under: the package doc's table, written out again here so
// that a renaming is a visible change.
var otelName = map[string]string{
	"sentinel_resource_pass_total":                              "sentinel.resource.pass",
	"sentinel_resource_block_total":                             "sentinel.resource.block",
	"sentinel_resource_success_total":                           "sentinel.resource.success",
	"sentinel_resource_error_total":                             "sentinel.resource.error",
	"sentinel_resource_response_time_seconds":                   "sentinel.resource.response_time",
	"sentinel_resource_min_response_time_seconds":               "sentinel.resource.response_time.min",
	"sentinel_resource_concurrent_calls":                        "sentinel.resource.active_calls",
	"sentinel_resource_block_by_type_total":                     "sentinel.resource.block_by_type",
	"sentinel_dry_run_blocks_total":                             "sentinel.resource.dry_run.block",
	"sentinel_inbound_pass_total":                               "sentinel.inbound.pass",
	"sentinel_inbound_block_total":                              "sentinel.inbound.block",
	"sentinel_inbound_success_total":                            "sentinel.inbound.success",
	"sentinel_inbound_error_total":                              "sentinel.inbound.error",
	"sentinel_inbound_response_time_seconds":                    "sentinel.inbound.response_time",
	"sentinel_inbound_min_response_time_seconds":                "sentinel.inbound.response_time.min",
	"sentinel_inbound_concurrent_calls":                         "sentinel.inbound.active_calls",
	"sentinel_origin_pass_per_second":                           "sentinel.origin.pass.rate",
	"sentinel_origin_block_per_second":                          "sentinel.origin.block.rate",
	"sentinel_origin_concurrent_calls":                          "sentinel.origin.active_calls",
	"sentinel_rules":                                            "sentinel.rules",
	"sentinel_circuit_breaker_state":                            "sentinel.circuit_breaker.state",
	"sentinel_circuit_breaker_transitions_total":                "sentinel.circuit_breaker.transitions",
	"sentinel_datasource_loads_total":                           "sentinel.datasource.loads",
	"sentinel_datasource_refusals_total":                        "sentinel.datasource.refusals",
	"sentinel_datasource_rules":                                 "sentinel.datasource.rules",
	"sentinel_datasource_last_reload_successful":                "sentinel.datasource.last_reload.successful",
	"sentinel_datasource_last_reload_success_timestamp_seconds": "sentinel.datasource.last_reload.time",
	"sentinel_adaptive_limit":                                   "sentinel.adaptive.limit",
	"sentinel_adaptive_in_flight":                               "sentinel.adaptive.active_calls",
	"sentinel_adaptive_min_rtt_seconds":                         "sentinel.adaptive.min_rtt",
	"sentinel_adaptive_probing":                                 "sentinel.adaptive.probing",
	"sentinel_dependency_up":                                    "sentinel.dependency.up",
	"sentinel_dependency_outages_total":                         "sentinel.dependency.outages",
}

// familyKey is the attribute key a family's label is expected under.
func familyKey(family, label string) (string, bool) {
	if strings.HasPrefix(family, "sentinel_dependency_") && (label == "kind" || label == "name") {
		return "sentinel.dependency." + label, true
	}
	k, ok := otelKey[label]
	return k, ok
}

// derivedName is the package doc's rule for a family it does not list
// yet: "sentinel_" becomes "sentinel.", _total and _seconds go.
func derivedName(family string) string {
	name := strings.TrimSuffix(family, "_total")
	name = strings.TrimSuffix(name, "_seconds")
	if n, ok := strings.CutPrefix(name, "sentinel_"); ok {
		name = "sentinel." + n
	}
	return name
}

var otelKey = map[string]string{
	"resource": "sentinel.resource", "block_type": "sentinel.block.type", "type": "sentinel.block.type",
	"origin": "sentinel.origin", "kind": "sentinel.rule.kind", "rule": "sentinel.rule.index",
	"strategy": "sentinel.circuit_breaker.strategy", "state": "sentinel.circuit_breaker.state",
	"to": "sentinel.circuit_breaker.state", "source": "sentinel.datasource.source",
}

// prometheusPoints gathers reg as OpenTelemetry would name it; the
// histogram family is left to the producer's test.
func prometheusPoints(t *testing.T, reg prometheus.Gatherer) map[point]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	out := map[point]float64{}
	for _, mf := range mfs {
		if mf.GetType() == dto.MetricType_HISTOGRAM {
			continue
		}
		name, ok := otelName[mf.GetName()]
		if !ok {
			name = derivedName(mf.GetName())
		}
		for _, m := range mf.GetMetric() {
			var kv []string
			for _, l := range m.GetLabel() {
				key, ok := familyKey(mf.GetName(), l.GetName())
				if !ok {
					key = "sentinel." + l.GetName()
				}
				kv = append(kv, key+"="+l.GetValue())
			}
			sort.Strings(kv)
			var v float64
			switch {
			case m.Counter != nil:
				v = m.GetCounter().GetValue()
			case m.Gauge != nil:
				v = m.GetGauge().GetValue()
			case m.Summary != nil:
				v = m.GetSummary().GetSampleSum()
			case m.Untyped != nil:
				v = m.GetUntyped().GetValue()
			}
			out[point{name, strings.Join(kv, ",")}] = v
		}
	}
	return out
}

func attrString(s attribute.Set) string {
	var kv []string
	for _, a := range s.ToSlice() {
		kv = append(kv, string(a.Key)+"="+a.Value.AsString())
	}
	sort.Strings(kv)
	return strings.Join(kv, ",")
}

// otelPoints collects reader and returns every sentinel series but the
// histogram's, with the scope they came from.
func otelPoints(t *testing.T, reader sdkmetric.Reader) map[point]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	out := map[point]float64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if !strings.HasPrefix(m.Name, "sentinel.") {
				continue
			}
			add := func(attrs attribute.Set, v float64) {
				out[point{m.Name, attrString(attrs)}] = v
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				require.True(t, d.IsMonotonic || !strings.HasSuffix(m.Name, "pass"), m.Name)
				for _, p := range d.DataPoints {
					add(p.Attributes, float64(p.Value))
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					add(p.Attributes, p.Value)
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					add(p.Attributes, float64(p.Value))
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					add(p.Attributes, p.Value)
				}
			case metricdata.Histogram[float64]:
			default:
				t.Fatalf("%s: unexpected data %T", m.Name, m.Data)
			}
		}
	}
	return out
}

type fakeSource struct {
	datasource.Source
	st datasource.Status
}

func (f fakeSource) Status() datasource.Status { return f.st }

// traffic makes calls that touch every family: passes, flow blocks,
// business errors, inbound calls, a breaker that opens, origins and
// response times.
func traffic(t *testing.T, clk *clocktest.Clock, prefix string) {
	t.Helper()
	res, breaker := prefix+".flow", prefix+".breaker"
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: res, Grade: flow.GradeQPS, Count: 3}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	require.NoError(t, degrade.LoadRules([]degrade.Rule{
		{Resource: breaker, Grade: degrade.ErrorCount, Count: 1, TimeWindow: 10, MinRequestAmount: 1},
	}))
	t.Cleanup(func() { _ = degrade.LoadRules(nil) })

	for s := range 3 {
		for i := range 5 {
			ctx := runtime.EnterContext(context.Background(), prefix+"_ctx", fmt.Sprintf("origin-%d", i%2))
			e, b := runtime.Entry(ctx, res, runtime.WithTrafficType(runtime.Inbound))
			if b != nil {
				continue
			}
			clk.Advance(time.Duration(s*7+i) * time.Millisecond)
			if i == 1 {
				e.SetError(errors.New("boom"))
			}
			e.Exit()
		}
		for range 3 {
			if e, b := runtime.Entry(context.Background(), breaker); b == nil {
				e.Exit(runtime.WithError(errors.New("down")))
			}
		}
		clk.Advance(time.Second)
	}
	_, _ = runtime.Entry(context.Background(), res) // one in flight

	// An adaptive concurrency limit, and a dependency that went down.
	adaptiveRes := prefix + ".adaptive"
	require.NoError(t, adaptive.LoadRules([]adaptive.Rule{{Resource: adaptiveRes}}))
	t.Cleanup(func() { _ = adaptive.LoadRules(nil) })
	if e, b := runtime.Entry(context.Background(), adaptiveRes); b == nil {
		clk.Advance(2 * time.Millisecond)
		e.Exit()
	}
	dep := runtime.NewDependency("cluster redis", prefix+":6379", "cluster rules are checked locally")
	t.Cleanup(dep.Close)
	dep.Down(errors.New("connection refused"))
}

func TestTheFiguresMatchThePrometheusCollectorsOnTheSameTraffic(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	src := fakeSource{st: datasource.Status{Path: "rules/flow.json", Kind: "flow", Rules: 1, Loads: 2, Refusals: 1,
		LastLoad: time.UnixMilli(1_764_000_000_500)}}
	opts := []metrics.Option{metrics.WithSource(src), metrics.WithOrigins(4)}

	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector(opts...))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	m, err := sentinelotel.RegisterMetrics(mp, opts...)
	require.NoError(t, err)
	defer m.Unregister()

	traffic(t, clk, t.Name())
	want := prometheusPoints(t, reg)
	got := otelPoints(t, reader)
	assert.Equal(t, want, got)

	// Spot checks, so that agreement is not agreement on nothing.
	res := "sentinel.resource=" + t.Name() + ".flow"
	assert.EqualValues(t, 10, got[point{"sentinel.resource.pass", res}], "9 in three seconds, and the one in flight")
	assert.EqualValues(t, 6, got[point{"sentinel.resource.block", res}])
	assert.EqualValues(t, 6, got[point{"sentinel.resource.block_by_type", "sentinel.block.type=flow," + res}])
	assert.EqualValues(t, 3, got[point{"sentinel.resource.error", res}])
	assert.EqualValues(t, 1, got[point{"sentinel.resource.active_calls", res}])
	assert.EqualValues(t, 1, got[point{"sentinel.circuit_breaker.transitions",
		"sentinel.circuit_breaker.state=open,sentinel.resource=" + t.Name() + ".breaker"}])
	assert.EqualValues(t, 2, got[point{"sentinel.datasource.loads", "sentinel.datasource.source=rules/flow.json,sentinel.rule.kind=flow"}])
	assert.Contains(t, got, point{"sentinel.origin.pass.rate", "sentinel.origin=origin-0," + res})
	assert.Contains(t, got, point{"sentinel.adaptive.limit", "sentinel.resource=" + t.Name() + ".adaptive"})
	assert.EqualValues(t, 0, got[point{"sentinel.dependency.up",
		"sentinel.dependency.kind=cluster redis,sentinel.dependency.name=" + t.Name() + ":6379"}])
	assert.EqualValues(t, 1, got[point{"sentinel.dependency.outages",
		"sentinel.dependency.kind=cluster redis,sentinel.dependency.name=" + t.Name() + ":6379"}])

	// Later traffic moves both alike.
	traffic(t, clk, t.Name()+".later")
	assert.Equal(t, prometheusPoints(t, reg), otelPoints(t, reader))
}

func TestInstrumentsHaveTheirKindsAndUnits(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	e, b := runtime.Entry(context.Background(), t.Name())
	require.Nil(t, b)
	clk.Advance(3 * time.Millisecond)
	e.Exit()
	clk.Advance(time.Second) // a whole second for the minimum

	reader := sdkmetric.NewManualReader()
	m, err := sentinelotel.RegisterMetrics(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	require.NoError(t, err)
	defer m.Unregister()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	byName := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		assert.Equal(t, "github.com/sentinelgen/sentinelgen/adapters/otel", sm.Scope.Name)
		for _, m := range sm.Metrics {
			byName[m.Name] = m
		}
	}
	pass := byName["sentinel.resource.pass"]
	assert.Equal(t, "{call}", pass.Unit)
	require.IsType(t, metricdata.Sum[int64]{}, pass.Data)
	assert.True(t, pass.Data.(metricdata.Sum[int64]).IsMonotonic)
	assert.Equal(t, metricdata.CumulativeTemporality, pass.Data.(metricdata.Sum[int64]).Temporality)

	rt := byName["sentinel.resource.response_time"]
	assert.Equal(t, "s", rt.Unit)
	require.IsType(t, metricdata.Sum[float64]{}, rt.Data)

	active := byName["sentinel.resource.active_calls"]
	require.IsType(t, metricdata.Sum[int64]{}, active.Data)
	assert.False(t, active.Data.(metricdata.Sum[int64]).IsMonotonic, "calls in flight rise and fall")

	require.IsType(t, metricdata.Gauge[float64]{}, byName["sentinel.resource.response_time.min"].Data)
}

func TestTheHistogramMatchesThePrometheusCollectorsBucketForBucket(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	res := t.Name()
	runtime.EnableRTHistogram(res)
	for _, d := range []time.Duration{30 * time.Microsecond, 420 * time.Microsecond, 420 * time.Microsecond, 7 * time.Millisecond, 20 * time.Second} {
		e, b := runtime.Entry(context.Background(), res)
		require.Nil(t, b)
		clk.Advance(d)
		e.Exit()
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector())
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var prom *dto.Histogram
	for _, mf := range mfs {
		if mf.GetName() != "sentinel_resource_call_duration_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == res {
				prom = m.GetHistogram()
			}
		}
	}
	require.NotNil(t, prom)

	reader := sdkmetric.NewManualReader(sdkmetric.WithProducer(sentinelotel.NewProducer()))
	sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	var got *metricdata.HistogramDataPoint[float64]
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "sentinel.resource.call.duration" {
				continue
			}
			assert.Equal(t, "s", m.Unit)
			h := m.Data.(metricdata.Histogram[float64])
			assert.Equal(t, metricdata.CumulativeTemporality, h.Temporality)
			for i, p := range h.DataPoints {
				if v, _ := p.Attributes.Value("sentinel.resource"); v.AsString() == res {
					got = &h.DataPoints[i]
				}
			}
		}
	}
	require.NotNil(t, got)

	assert.EqualValues(t, 5, got.Count)
	assert.Equal(t, prom.GetSampleCount(), got.Count)
	assert.InDelta(t, prom.GetSampleSum(), got.Sum, 1e-12)
	assert.InDelta(t, 20.00787, got.Sum, 1e-9)
	require.Len(t, got.Bounds, len(prom.GetBucket()))
	require.Len(t, got.BucketCounts, len(got.Bounds)+1)
	var cum uint64
	for i, b := range prom.GetBucket() {
		assert.Equal(t, b.GetUpperBound(), got.Bounds[i])
		cum += got.BucketCounts[i]
		assert.Equal(t, b.GetCumulativeCount(), cum, "bucket ≤ %v", got.Bounds[i])
	}
	assert.EqualValues(t, 1, got.BucketCounts[len(got.Bounds)], "20 s is past every bound")
	assert.Equal(t, 25e-6, got.Bounds[0], "microsecond buckets, in seconds")
}

func TestUnregisteredMetricsAreNotObserved(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	m, err := sentinelotel.RegisterMetrics(mp)
	require.NoError(t, err)
	require.NoError(t, m.Unregister())
	require.NoError(t, m.Unregister(), "idempotent")
	assert.Empty(t, otelPoints(t, reader))
}
