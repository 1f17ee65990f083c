package system_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/system"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	// The runtime's cached clock ticks for a second after its last read.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"))
}

// fakeReader is an injected machine state.
type fakeReader struct {
	mu        sync.Mutex
	load, cpu float64
}

func (f *fakeReader) set(load, cpu float64) {
	f.mu.Lock()
	f.load, f.cpu = load, cpu
	f.mu.Unlock()
	system.Sample()
}

func (f *fakeReader) SystemLoad() (float64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.load, nil
}

func (f *fakeReader) CPUUsage() (float64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cpu, nil
}

// setup installs a hand-stepped clock and an injected reader, and clears
// the rules when the test ends.
func setup(t *testing.T) (*clocktest.Clock, *fakeReader) {
	t.Helper()
	c := clocktest.New()
	t.Cleanup(runtime.SetClock(c))
	f := &fakeReader{load: -1, cpu: -1}
	t.Cleanup(system.SetReader(f))
	t.Cleanup(func() { require.NoError(t, system.LoadRules(nil)) })
	return c, f
}

func rule(edit func(r *system.Rule)) system.Rule {
	r := system.NewRule()
	edit(&r)
	return r
}

var inbound = runtime.WithTrafficType(runtime.Inbound)

func enter(t *testing.T, res string, opts ...runtime.EntryOption) (*runtime.SentinelEntry, *runtime.BlockError) {
	t.Helper()
	return runtime.Entry(context.Background(), res, opts...)
}

func mustPass(t *testing.T, res string, opts ...runtime.EntryOption) *runtime.SentinelEntry {
	t.Helper()
	e, b := enter(t, res, opts...)
	require.Nil(t, b, "call should pass")
	return e
}

func mustBlock(t *testing.T, res string, metric system.Metric, opts ...runtime.EntryOption) system.Triggered {
	t.Helper()
	e, b := enter(t, res, opts...)
	require.Nil(t, e)
	require.NotNil(t, b, "call should be blocked by %s", metric)
	require.Equal(t, runtime.BlockSystem, b.BlockType())
	tv, ok := b.TriggeredValue().(system.Triggered)
	require.True(t, ok, "triggered value %T", b.TriggeredValue())
	require.Equal(t, metric, tv.Metric)
	require.IsType(t, &system.Rule{}, b.Rule())
	return tv
}

func TestQPSThresholdBlocksInboundOnly(t *testing.T) {
	c, _ := setup(t)
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.QPS = 2 })}))

	mustPass(t, "sys-qps", inbound).Exit()
	mustPass(t, "sys-qps", inbound).Exit()
	tv := mustBlock(t, "sys-qps", system.MetricQPS, inbound)
	assert.Equal(t, system.Triggered{Metric: system.MetricQPS, Value: 2, Threshold: 2}, tv)

	for range 10 { // outbound calls are never checked
		mustPass(t, "sys-qps-out").Exit()
	}
	mustBlock(t, "sys-qps", system.MetricQPS, inbound)

	c.Advance(time.Second) // a fresh window
	mustPass(t, "sys-qps", inbound).Exit()
}

func TestQPSCountsTheBatch(t *testing.T) {
	setup(t)
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.QPS = 3 })}))
	mustPass(t, "sys-batch", inbound, runtime.WithBatchCount(2)).Exit()
	mustBlock(t, "sys-batch", system.MetricQPS, inbound, runtime.WithBatchCount(2))
	mustPass(t, "sys-batch", inbound).Exit()
}

func TestThreadThreshold(t *testing.T) {
	setup(t)
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.MaxThread = 1 })}))
	// Java compares in-flight > maxThread before counting the call, so
	// maxThread+1 calls get in.
	a := mustPass(t, "sys-thread", inbound)
	b := mustPass(t, "sys-thread", inbound)
	tv := mustBlock(t, "sys-thread", system.MetricThread, inbound)
	assert.Equal(t, system.Triggered{Metric: system.MetricThread, Value: 2, Threshold: 1}, tv)
	mustPass(t, "sys-thread-out").Exit()
	a.Exit()
	mustPass(t, "sys-thread", inbound).Exit()
	b.Exit()
}

func TestAvgRTThreshold(t *testing.T) {
	c, _ := setup(t)
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.AvgRT = 10 })}))
	e := mustPass(t, "sys-rt", inbound)
	c.Advance(20 * time.Millisecond)
	e.Exit()
	tv := mustBlock(t, "sys-rt", system.MetricRT, inbound)
	assert.Equal(t, 20.0, tv.Value)
	assert.Equal(t, 10.0, tv.Threshold)
	mustPass(t, "sys-rt-out").Exit()
	c.Advance(time.Second)
	mustPass(t, "sys-rt", inbound).Exit()
}

func TestLoadThresholdAppliesOnlyWhenBBRFails(t *testing.T) {
	c, f := setup(t)
	f.set(5, -1)
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.HighestSystemLoad = 1 })}))
	require.Equal(t, 5.0, system.CurrentLoad())

	// Java's maxSuccessQps is at least one per bucket (2/s) and minRt is
	// 5000 ms when nothing completed: BBR explains 10 calls in flight, so
	// an 11th in flight is refused.
	var open []*runtime.SentinelEntry
	for range 11 {
		open = append(open, mustPass(t, "sys-load", inbound))
	}
	tv := mustBlock(t, "sys-load", system.MetricLoad, inbound)
	assert.Equal(t, system.Triggered{Metric: system.MetricLoad, Value: 5, Threshold: 1}, tv)
	for _, e := range open {
		e.Exit() // each took 0 ms: minRt is now 1 (Java's floor)
	}
	open = nil

	// One call in flight: BBR passes (threads > 1 fails).
	a := mustPass(t, "sys-load", inbound)
	b := mustPass(t, "sys-load", inbound)
	// Two in flight, maxSuccessQps*minRt/1000 = 20*1/1000.
	tv = mustBlock(t, "sys-load", system.MetricLoad, inbound)
	assert.Equal(t, system.Triggered{Metric: system.MetricLoad, Value: 5, Threshold: 1}, tv)

	f.set(0.5, -1) // the load falls below the threshold
	mustPass(t, "sys-load", inbound).Exit()
	f.set(5, -1)
	a.Exit()
	b.Exit()

	// Four calls that each took a second complete in one bucket:
	// maxSuccessQps = 4*2 = 8, minRt = 1000, so up to 8 calls in flight
	// are explained by the throughput and BBR lets calls through.
	c.Advance(time.Second)
	for range 4 {
		open = append(open, mustPass(t, "sys-load", inbound))
	}
	c.Advance(time.Second)
	for _, e := range open {
		e.Exit()
	}
	x := mustPass(t, "sys-load", inbound)
	y := mustPass(t, "sys-load", inbound)
	z := mustPass(t, "sys-load", inbound)
	x.Exit()
	y.Exit()
	z.Exit()
}

func TestCPUThreshold(t *testing.T) {
	_, f := setup(t)
	f.set(-1, 0.9)
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.HighestCPUUsage = 0.8 })}))
	tv := mustBlock(t, "sys-cpu", system.MetricCPU, inbound)
	assert.Equal(t, system.Triggered{Metric: system.MetricCPU, Value: 0.9, Threshold: 0.8}, tv)
	mustPass(t, "sys-cpu-out").Exit()
	f.set(-1, 0.5)
	mustPass(t, "sys-cpu", inbound).Exit()
	f.set(-1, -1) // unknown usage never blocks
	mustPass(t, "sys-cpu", inbound).Exit()
}

// Java's SystemRuleManagerTest: cpu 0 blocks inbound calls once a reading
// is in.
func TestCPUZeroBlocks(t *testing.T) {
	_, f := setup(t)
	f.set(-1, 0.01)
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.HighestCPUUsage = 0 })}))
	mustBlock(t, "sys-cpu0", system.MetricCPU, inbound)
}

func TestChecksRunInJavaOrder(t *testing.T) {
	c, f := setup(t)
	f.set(9, 0.99)
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) {
		r.QPS, r.MaxThread, r.AvgRT, r.HighestSystemLoad, r.HighestCPUUsage = 3, 1, 10, 1, 0.5
	})}))
	// cpu is last: with nothing else exceeded, cpu blocks.
	mustBlock(t, "sys-order", system.MetricCPU, inbound)
	f.set(9, 0.1)
	a := mustPass(t, "sys-order", inbound)
	b := mustPass(t, "sys-order", inbound)
	// thread comes before load: two in flight exceed maxThread 1.
	mustBlock(t, "sys-order", system.MetricThread, inbound)
	c.Advance(20 * time.Millisecond)
	a.Exit()
	// rt comes before load: one call took 20 ms.
	mustBlock(t, "sys-order", system.MetricRT, inbound)
	b.Exit()
	mustBlock(t, "sys-order", system.MetricRT, inbound)
	c.Advance(time.Second)
	for range 3 {
		mustPass(t, "sys-order", inbound).Exit()
	}
	// qps is first.
	mustBlock(t, "sys-order", system.MetricQPS, inbound)
}

func TestStrictestValueOfEachFieldIsInForce(t *testing.T) {
	setup(t)
	tests := []struct {
		name  string
		rules []system.Rule
		want  system.Rule
	}{
		{"loads 1.2, 2.3, 3.4 give 1.2", []system.Rule{
			rule(func(r *system.Rule) { r.HighestSystemLoad = 1.2 }),
			rule(func(r *system.Rule) { r.HighestSystemLoad = 2.3 }),
			rule(func(r *system.Rule) { r.HighestSystemLoad = 3.4 }),
		}, rule(func(r *system.Rule) { r.HighestSystemLoad = 1.2 })},
		{"one threshold per rule", []system.Rule{
			rule(func(r *system.Rule) { r.HighestSystemLoad = 1.2 }),
			rule(func(r *system.Rule) { r.MaxThread = 17 }),
			rule(func(r *system.Rule) { r.HighestCPUUsage = 0.7 }),
			rule(func(r *system.Rule) { r.QPS = 1500 }),
			rule(func(r *system.Rule) { r.AvgRT = 50 }),
		}, system.Rule{HighestSystemLoad: 1.2, HighestCPUUsage: 0.7, QPS: 1500, AvgRT: 50, MaxThread: 17}},
		{"minimum of every field", []system.Rule{
			{HighestSystemLoad: 4, HighestCPUUsage: 0.9, QPS: 100, AvgRT: 30, MaxThread: 8},
			{HighestSystemLoad: 2, HighestCPUUsage: 0.95, QPS: 200, AvgRT: 20, MaxThread: 9},
		}, system.Rule{HighestSystemLoad: 2, HighestCPUUsage: 0.9, QPS: 100, AvgRT: 20, MaxThread: 8}},
		{"a last rule with nothing set does not switch checking off (Java's bug)", []system.Rule{
			rule(func(r *system.Rule) { r.QPS = 10 }),
			system.NewRule(),
		}, rule(func(r *system.Rule) { r.QPS = 10 })},
		{"negative values are unset", []system.Rule{
			rule(func(r *system.Rule) { r.HighestSystemLoad = -0.9; r.QPS = -5 }),
		}, system.NewRule()},
		{"empty clears", nil, system.NewRule()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, system.LoadRules(tt.rules))
			assert.Equal(t, tt.want, system.InForce())
			assert.Equal(t, len(tt.rules), len(system.Rules()), "Rules returns the rules as loaded")
		})
	}
}

func TestLastEmptyRuleKeepsBlocking(t *testing.T) {
	setup(t)
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.QPS = 0 }), system.NewRule()}))
	mustBlock(t, "sys-last-empty", system.MetricQPS, inbound)
}

func TestBlockErrorNamesTheRuleThatSetTheThreshold(t *testing.T) {
	setup(t)
	strict := rule(func(r *system.Rule) { r.QPS = 0 })
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.QPS = 5 }), strict}))
	_, b := enter(t, "sys-which", inbound)
	require.NotNil(t, b)
	assert.Equal(t, strict, *b.Rule().(*system.Rule))
	assert.Contains(t, b.Error(), "qps 0 > 0")
}

func TestInvalidSetIsRefusedWhole(t *testing.T) {
	setup(t)
	good := rule(func(r *system.Rule) { r.QPS = 100 })
	require.NoError(t, system.LoadRules([]system.Rule{good}))
	tests := []struct {
		name  string
		rule  system.Rule
		field string
	}{
		{"NaN qps", rule(func(r *system.Rule) { r.QPS = math.NaN() }), "qps"},
		{"infinite load", rule(func(r *system.Rule) { r.HighestSystemLoad = math.Inf(1) }), "highestSystemLoad"},
		{"-Inf cpu", rule(func(r *system.Rule) { r.HighestCPUUsage = math.Inf(-1) }), "highestCpuUsage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.QPS = 1 }), tt.rule})
			var re *runtime.RuleError
			require.True(t, errors.As(err, &re), "error %v", err)
			assert.Equal(t, 1, re.Index)
			assert.Equal(t, tt.field, re.Field)
			assert.Equal(t, []system.Rule{good}, system.Rules(), "the rules in force stay")
			assert.Error(t, system.ValidateRules([]system.Rule{tt.rule}))
		})
	}
	assert.NoError(t, system.ValidateRules([]system.Rule{rule(func(r *system.Rule) { r.HighestCPUUsage = 1 })}))
}

func TestJSONDefaultsAndJavaFields(t *testing.T) {
	var rules []system.Rule
	require.NoError(t, json.Unmarshal([]byte(`[
		{"id": 3, "app": "demo", "ip": "10.0.0.1", "port": 8719, "gmtCreate": 1, "qps": 20},
		{"highestSystemLoad": 0, "avgRt": 0},
		{"resource": "ignored", "limitApp": "default", "highestCpuUsage": 0.5, "maxThread": 10}
	]`), &rules))
	assert.Equal(t, rule(func(r *system.Rule) { r.QPS = 20 }), rules[0], "absent fields are unset")
	assert.Equal(t, rule(func(r *system.Rule) { r.HighestSystemLoad = 0; r.AvgRT = 0 }), rules[1], "explicit 0 is a threshold")
	assert.Equal(t, rule(func(r *system.Rule) { r.HighestCPUUsage = 0.5; r.MaxThread = 10 }), rules[2])

	out, err := json.Marshal(rules[0])
	require.NoError(t, err)
	assert.JSONEq(t, `{"highestSystemLoad":-1,"highestCpuUsage":-1,"qps":20,"avgRt":-1,"maxThread":-1}`, string(out))
}

func TestPropertyLoadsRules(t *testing.T) {
	setup(t)
	var seen [][]system.Rule
	system.Property().Listen(func(r []system.Rule) { seen = append(seen, r) })
	rs := []system.Rule{rule(func(r *system.Rule) { r.MaxThread = 3 })}
	require.NoError(t, system.Property().Update(rs))
	assert.Equal(t, rs, system.Rules())
	require.Error(t, system.Property().Update([]system.Rule{rule(func(r *system.Rule) { r.HighestCPUUsage = math.NaN() })}))
	assert.Equal(t, rs, system.Rules())
	assert.Len(t, seen, 1)
	require.NoError(t, system.Property().Update(nil))
}

func TestSamplerRunsOnlyWhileALoadOrCPUThresholdIsLoaded(t *testing.T) {
	_, f := setup(t)
	f.set(3, 0.3)
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.QPS = 100 })}))
	require.NoError(t, goleak.Find(goleak.IgnoreCurrent()), "no sampler without a load or cpu threshold")

	before := goleak.IgnoreCurrent()
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.HighestCPUUsage = 0.9 })}))
	assert.Error(t, goleak.Find(before), "the sampler runs")
	assert.Equal(t, 0.3, system.CurrentCPUUsage())

	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.HighestSystemLoad = 9 })}))
	require.NoError(t, system.LoadRules([]system.Rule{rule(func(r *system.Rule) { r.AvgRT = 9 })}))
	require.NoError(t, goleak.Find(before), "clearing the thresholds stops the sampler")
	assert.Equal(t, -1.0, system.CurrentLoad())
	assert.Equal(t, -1.0, system.CurrentCPUUsage())
}

func TestNoRulesBindsNothing(t *testing.T) {
	setup(t)
	require.NoError(t, system.LoadRules(nil))
	r := runtime.Declare(runtime.ResourceSpec{Name: "sys-none", Traffic: runtime.Inbound})
	e, b := r.Entry(context.Background())
	require.Nil(t, b)
	e.Exit()
}

func FuzzRuleJSON(f *testing.F) {
	for _, s := range []string{
		`{"qps": 20}`,
		`{"highestSystemLoad": 1.2, "highestCpuUsage": 0.7, "avgRt": 50, "maxThread": 17, "qps": 1500}`,
		`{"highestCpuUsage": 2.7}`,
		`{"id": 1, "app": "x", "gmtCreate": 0}`,
		`{"qps": "x"}`,
		`{"avgRt": 1.5}`,
		`[]`,
		`null`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var r system.Rule
		if json.Unmarshal([]byte(s), &r) != nil {
			return
		}
		_ = r.String()
		if system.ValidateRules([]system.Rule{r}) != nil {
			return
		}
		out, err := json.Marshal(r)
		require.NoError(t, err)
		var back system.Rule
		require.NoError(t, json.Unmarshal(out, &back))
		require.Equal(t, r, back)
	})
}
