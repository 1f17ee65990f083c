package metrics_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/metrics"
)

// value gathers reg and returns the value of the series name{labels}
// (counter, gauge, or a summary's sum), and whether it exists.
func value(t *testing.T, reg prometheus.Gatherer, name string, labels ...string) (float64, bool) {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			want := map[string]string{}
			for i := 0; i+1 < len(labels); i += 2 {
				want[labels[i]] = labels[i+1]
			}
			if len(m.GetLabel()) != len(want) {
				continue
			}
			for _, lp := range m.GetLabel() {
				if want[lp.GetName()] != lp.GetValue() {
					continue series
				}
			}
			return metricValue(m), true
		}
	}
	return 0, false
}

func metricValue(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Summary != nil:
		return m.GetSummary().GetSampleSum()
	}
	return 0
}

func mustValue(t *testing.T, reg prometheus.Gatherer, name string, labels ...string) float64 {
	t.Helper()
	v, ok := value(t, reg, name, labels...)
	require.True(t, ok, "no series %s%v", name, labels)
	return v
}

func newRegistry(t *testing.T, opts ...metrics.Option) (*prometheus.Registry, *metrics.Collector) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	c := metrics.NewCollector(opts...)
	reg.MustRegister(c)
	return reg, c
}

// call enters res, waits rt on the clock, and exits with err.
func call(clk *clocktest.Clock, res string, rt time.Duration, err error) bool {
	e, b := runtime.Entry(context.Background(), res)
	if b != nil {
		return false
	}
	clk.Advance(rt)
	e.SetError(err)
	e.Exit()
	return true
}

func TestResourceCounters(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	const res = "metrics.counters"
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: res, Grade: flow.GradeQPS, Count: 3}}))
	defer flow.LoadRules(nil)
	reg, _ := newRegistry(t)

	admitted := 0
	for i := range 5 {
		var err error
		if i == 1 {
			err = errors.New("boom")
		}
		if call(clk, res, 20*time.Millisecond, err) {
			admitted++
		}
	}
	require.Equal(t, 3, admitted, "the flow rule admits 3 in the second")

	l := []string{"resource", res}
	assert.EqualValues(t, 3, mustValue(t, reg, "sentinel_resource_pass_total", l...))
	assert.EqualValues(t, 2, mustValue(t, reg, "sentinel_resource_block_total", l...))
	assert.EqualValues(t, 3, mustValue(t, reg, "sentinel_resource_success_total", l...))
	assert.EqualValues(t, 1, mustValue(t, reg, "sentinel_resource_error_total", l...))
	assert.InDelta(t, 0.060, mustValue(t, reg, "sentinel_resource_response_time_seconds", l...), 1e-9)
	assert.EqualValues(t, 0, mustValue(t, reg, "sentinel_resource_concurrent_calls", l...))
	_, ok := value(t, reg, "sentinel_resource_min_response_time_seconds", l...)
	assert.False(t, ok, "no whole second has passed")

	// The next second: the counters go on from there, and last second's
	// minimum RT shows.
	clk.Advance(time.Second)
	e, b := runtime.Entry(context.Background(), res)
	require.Nil(t, b)
	assert.EqualValues(t, 4, mustValue(t, reg, "sentinel_resource_pass_total", l...))
	assert.EqualValues(t, 1, mustValue(t, reg, "sentinel_resource_concurrent_calls", l...))
	assert.InDelta(t, 0.020, mustValue(t, reg, "sentinel_resource_min_response_time_seconds", l...), 1e-9)
	e.Exit()
	assert.EqualValues(t, 4, mustValue(t, reg, "sentinel_resource_success_total", l...))
}

func TestInboundCounters(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	reg, _ := newRegistry(t)
	before := mustValue(t, reg, "sentinel_inbound_pass_total")
	e, b := runtime.Entry(context.Background(), "metrics.inbound", runtime.WithTrafficType(runtime.Inbound))
	require.Nil(t, b)
	e.Exit()
	call(clk, "metrics.outbound", 0, nil)
	assert.Equal(t, before+1, mustValue(t, reg, "sentinel_inbound_pass_total"))
}

// Over minutes of traffic, the counters match the calls made exactly when
// scrapes come often enough, and never go down when they do not.
func TestCountersStayExactAndMonotonic(t *testing.T) {
	tests := []struct {
		name   string
		scrape time.Duration
		exact  bool
	}{
		{"scraped every 15s: exact", 15 * time.Second, true},
		{"scraped every 50s: exact", 50 * time.Second, true},
		{"scraped every 70s: undercounts, never decreases", 70 * time.Second, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktest.New()
			defer runtime.SetClock(clk)()
			res := "metrics.exact." + string(rune('a'+i))
			reg, _ := newRegistry(t)
			const step = 250 * time.Millisecond
			calls, last := 0, 0.0
			for elapsed := time.Duration(0); elapsed < 4*time.Minute; elapsed += step {
				call(clk, res, 0, nil)
				calls++
				clk.Advance(step)
				if elapsed%tt.scrape == 0 {
					v := mustValue(t, reg, "sentinel_resource_pass_total", "resource", res)
					require.GreaterOrEqual(t, v, last, "a counter never decreases")
					last = v
				}
			}
			v := mustValue(t, reg, "sentinel_resource_pass_total", "resource", res)
			require.GreaterOrEqual(t, v, last)
			if tt.exact {
				assert.EqualValues(t, calls, v)
			} else {
				assert.Less(t, v, float64(calls))
				assert.Greater(t, v, 0.8*float64(calls), "it loses what the ring dropped between scrapes")
			}
		})
	}
}

func TestFoldKeepsCountersExactBetweenRareScrapes(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	const res = "metrics.fold"
	reg, c := newRegistry(t)
	calls := 0
	for s := 1; s <= 180; s++ {
		call(clk, res, 0, nil)
		calls++
		clk.Advance(time.Second)
		if s%30 == 0 {
			c.Fold() // a ticker's job
		}
	}
	assert.EqualValues(t, calls, mustValue(t, reg, "sentinel_resource_pass_total", "resource", res))
}

func TestRulesAndBreakers(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	const res = "metrics.breaker"
	require.NoError(t, flow.LoadRules([]flow.Rule{
		{Resource: "metrics.a", Grade: flow.GradeQPS, Count: 10},
		{Resource: "metrics.b", Grade: flow.GradeQPS, Count: 10},
	}))
	defer flow.LoadRules(nil)
	require.NoError(t, degrade.LoadRules([]degrade.Rule{
		{Resource: res, Grade: degrade.ErrorCount, Count: 1, TimeWindow: 10, MinRequestAmount: 1},
		{Resource: res, Grade: degrade.SlowRequestRatio, Count: 100, TimeWindow: 10, SlowRatioThreshold: 0.5},
	}))
	defer degrade.LoadRules(nil)
	reg, _ := newRegistry(t)

	const rules = `
# HELP sentinel_rules Rules in force, per kind.
# TYPE sentinel_rules gauge
sentinel_rules{kind="adaptive"} 0
sentinel_rules{kind="authority"} 0
sentinel_rules{kind="degrade"} 2
sentinel_rules{kind="flow"} 2
sentinel_rules{kind="paramFlow"} 0
sentinel_rules{kind="system"} 0
`
	gatherAndCompare(t, reg, rules, "sentinel_rules")

	call(clk, res, 0, nil) // binds the breakers
	breakers := func(first string) string {
		return `
# HELP sentinel_circuit_breaker_state Circuit breaker state: 1 for the breaker's current state, 0 for the others. rule is the breaker's position among its resource's breakers (the degrade rules' order).
# TYPE sentinel_circuit_breaker_state gauge
sentinel_circuit_breaker_state{resource="metrics.breaker",rule="0",state="closed",strategy="ErrorCount"} ` + first[0:1] + `
sentinel_circuit_breaker_state{resource="metrics.breaker",rule="0",state="half_open",strategy="ErrorCount"} ` + first[2:3] + `
sentinel_circuit_breaker_state{resource="metrics.breaker",rule="0",state="open",strategy="ErrorCount"} ` + first[1:2] + `
sentinel_circuit_breaker_state{resource="metrics.breaker",rule="1",state="closed",strategy="SlowRequestRatio"} 1
sentinel_circuit_breaker_state{resource="metrics.breaker",rule="1",state="half_open",strategy="SlowRequestRatio"} 0
sentinel_circuit_breaker_state{resource="metrics.breaker",rule="1",state="open",strategy="SlowRequestRatio"} 0
`
	}
	gatherAndCompare(t, reg, breakers("100"), "sentinel_circuit_breaker_state")

	// Two errors exceed the error count of 1: the first breaker opens.
	call(clk, res, 0, errors.New("one"))
	call(clk, res, 0, errors.New("two"))
	gatherAndCompare(t, reg, breakers("010"), "sentinel_circuit_breaker_state")
	assert.EqualValues(t, 1, mustValue(t, reg, "sentinel_circuit_breaker_transitions_total", "resource", res, "to", "open"))

	// After the time window a probe goes through half-open, and succeeds.
	clk.Advance(10 * time.Second)
	call(clk, res, 0, nil)
	gatherAndCompare(t, reg, breakers("100"), "sentinel_circuit_breaker_state")
	assert.EqualValues(t, 1, mustValue(t, reg, "sentinel_circuit_breaker_transitions_total", "resource", res, "to", "half_open"))
	assert.EqualValues(t, 1, mustValue(t, reg, "sentinel_circuit_breaker_transitions_total", "resource", res, "to", "closed"))
}

func TestOriginsOnlyWhenAsked(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	const res = "metrics.origins"
	for _, origin := range []string{"app-b", "app-a", "app-c"} {
		ctx := runtime.EnterContext(context.Background(), "metrics_origins", origin)
		for range 3 {
			e, b := runtime.Entry(ctx, res)
			require.Nil(t, b)
			e.Exit()
		}
	}
	clk.Advance(time.Second)

	reg, _ := newRegistry(t)
	_, ok := value(t, reg, "sentinel_origin_pass_per_second", "resource", res, "origin", "app-a")
	assert.False(t, ok, "origins are not labels by default")

	reg, _ = newRegistry(t, metrics.WithOrigins(2))
	assert.EqualValues(t, 3, mustValue(t, reg, "sentinel_origin_pass_per_second", "resource", res, "origin", "app-a"))
	assert.EqualValues(t, 0, mustValue(t, reg, "sentinel_origin_block_per_second", "resource", res, "origin", "app-b"))
	assert.EqualValues(t, 0, mustValue(t, reg, "sentinel_origin_concurrent_calls", "resource", res, "origin", "app-b"))
	_, ok = value(t, reg, "sentinel_origin_pass_per_second", "resource", res, "origin", "app-c")
	assert.False(t, ok, "at most 2 origins per resource")
}

// fakeSource is a source with a given status; its other methods are not
// called.
type fakeSource struct {
	datasource.Source
	st datasource.Status
}

func (f fakeSource) Status() datasource.Status { return f.st }

func TestDataSourceReloads(t *testing.T) {
	good := fakeSource{st: datasource.Status{Path: "rules/flow.json", Kind: "flow", Rules: 3, Loads: 4, Refusals: 1,
		LastLoad: time.UnixMilli(1_764_000_000_500)}}
	bad := fakeSource{st: datasource.Status{Path: "rules/degrade.json", Kind: "degrade", Refusals: 2,
		LastError: errors.New("rule 0: timeWindow 0 is not > 0")}}
	reg, _ := newRegistry(t, metrics.WithSource(good), metrics.WithSource(bad))
	const want = `
# HELP sentinel_datasource_last_reload_success_timestamp_seconds When the data source last loaded a version.
# TYPE sentinel_datasource_last_reload_success_timestamp_seconds gauge
sentinel_datasource_last_reload_success_timestamp_seconds{kind="flow",source="rules/flow.json"} 1.7640000005e+09
# HELP sentinel_datasource_last_reload_successful 1 when the data source's last version loaded, 0 when it was refused or nothing loaded yet.
# TYPE sentinel_datasource_last_reload_successful gauge
sentinel_datasource_last_reload_successful{kind="degrade",source="rules/degrade.json"} 0
sentinel_datasource_last_reload_successful{kind="flow",source="rules/flow.json"} 1
# HELP sentinel_datasource_loads_total Rule versions the data source loaded.
# TYPE sentinel_datasource_loads_total counter
sentinel_datasource_loads_total{kind="degrade",source="rules/degrade.json"} 0
sentinel_datasource_loads_total{kind="flow",source="rules/flow.json"} 4
# HELP sentinel_datasource_refusals_total Rule versions the data source refused (the rules in force stayed).
# TYPE sentinel_datasource_refusals_total counter
sentinel_datasource_refusals_total{kind="degrade",source="rules/degrade.json"} 2
sentinel_datasource_refusals_total{kind="flow",source="rules/flow.json"} 1
# HELP sentinel_datasource_rules Rules the data source's last successful load put in force.
# TYPE sentinel_datasource_rules gauge
sentinel_datasource_rules{kind="degrade",source="rules/degrade.json"} 0
sentinel_datasource_rules{kind="flow",source="rules/flow.json"} 3
`
	gatherAndCompare(t, reg, want, "sentinel_datasource_last_reload_success_timestamp_seconds", "sentinel_datasource_last_reload_successful",
		"sentinel_datasource_loads_total", "sentinel_datasource_refusals_total", "sentinel_datasource_rules")
}

func TestCustomRuleKind(t *testing.T) {
	reg, _ := newRegistry(t, metrics.WithRuleKind(countedKind{name: "mine", n: 7}))
	assert.EqualValues(t, 7, mustValue(t, reg, "sentinel_rules", "kind", "mine"))
}

func TestMetricsPassLint(t *testing.T) {
	clk := clocktest.New()
	defer runtime.SetClock(clk)()
	call(clk, "metrics.lint", time.Millisecond, nil)
	reg, _ := newRegistry(t, metrics.WithSource(fakeSource{st: datasource.Status{Path: "f.json", Kind: "flow"}}))
	// lint gathers through the pedantic registry, which also checks every
	// metric against Describe.
	assert.Empty(t, lint(t, reg))
}
