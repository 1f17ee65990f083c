package degrade

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// generalChecker is what newChecker builds where it would build a
// soloChecker: the general checker of the one breaker.
func generalChecker(ck runtime.Checker) runtime.Checker {
	if s, ok := ck.(*soloChecker); ok {
		k := &checker{}
		k.breakers = append(k.inline[:0], (*breaker)(s))
		return k
	}
	return ck
}

type generalDegradeSlot struct{ degradeSlot }

func (generalDegradeSlot) Bind(r *runtime.Resource) runtime.Checker {
	return generalChecker(degradeSlot{}.Bind(r))
}

type generalDefaultSlot struct{ defaultSlot }

func (generalDefaultSlot) Bind(r *runtime.Resource) runtime.Checker {
	return generalChecker(defaultSlot{}.Bind(r))
}

// laterSwitch is a slot after the degrade slots that refuses every call
// while on is set.
type laterSwitch struct{ on atomic.Bool }

func (s *laterSwitch) Bind(*runtime.Resource) runtime.Checker { return s }
func (s *laterSwitch) Check(c *runtime.Call) *runtime.BlockError {
	if s.on.Load() {
		return c.Block(runtime.BlockCustom, nil, nil)
	}
	return nil
}
func (*laterSwitch) Exit(*runtime.Call) {}

var errSolo = errors.New("solo failure")

// breakerScenario drives one resource with one breaker through trips,
// recovery, a probe a later slot refuses, failed and good probes, reloads
// of the same and of a changed rule, and calls held across them. It
// returns what each call, the breaker and its observers showed, the
// resource's name written R.
func breakerScenario(t *testing.T, clk *clocktest.Clock, later *laterSwitch, name string, base Rule) []string {
	t.Helper()
	var out []string
	var mu sync.Mutex
	// Breakers' windows start at multiples of statIntervalMs: both runs
	// start on a minute.
	clk.Advance(time.Duration(60000-clk.Millis()%60000) * time.Millisecond)
	t0 := clk.Millis()
	note := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, strings.ReplaceAll(fmt.Sprintf(format, args...), name, "R"))
	}
	RegisterStateChangeObserver("solo-scenario", func(ev StateChange) {
		if ev.Resource == name {
			note("observer %v->%v value=%.3f @%d rule=%v", ev.From, ev.To, ev.Value, ev.Millis-t0, ev.Rule.Count)
		}
	})
	defer UnregisterStateChangeObserver("solo-scenario")
	rule := base
	if rule.Resource != "*" {
		rule.Resource = name
	}
	load := func(r Rule) { require.NoError(t, LoadRules([]Rule{r})) }
	do := func(label string, n int, d time.Duration, err error) {
		for i := range n {
			e, b := runtime.Entry(context.Background(), name)
			if b != nil {
				rule := "none"
				if r, ok := b.Rule().(*Rule); ok {
					rule = fmt.Sprint(r.Count)
				}
				note("%s#%d @%d: block %v rule=%s", label, i, clk.Millis()-t0, b.BlockType(), rule)
				continue
			}
			clk.Advance(d)
			e.Exit(runtime.WithError(err))
			note("%s#%d @%d: pass", label, i, clk.Millis()-t0)
		}
	}
	figures := func(label string) {
		r := runtime.LookupResource(name)
		var states []string
		for _, b := range Breakers() {
			if b.Resource == name {
				states = append(states, b.State.String())
			}
		}
		note("%s: breakers=%v blocks=%d custom=%d threads=%d", label, states,
			r.BlockCount(runtime.BlockDegrade), r.BlockCount(runtime.BlockCustom), r.ClusterNode().Threads())
	}

	load(rule)
	do("good", 6, 10*time.Millisecond, nil)
	do("bad", 6, 700*time.Millisecond, errSolo)
	do("open", 3, time.Millisecond, nil)
	figures("tripped")

	// At the retry time the probe is refused by a later slot: back to OPEN,
	// and the next call probes again.
	clk.Advance(time.Duration(rule.TimeWindow) * time.Second)
	later.on.Store(true)
	do("probe-refused", 1, time.Millisecond, nil)
	later.on.Store(false)
	do("probe-fails", 1, 700*time.Millisecond, errSolo)
	do("still-open", 2, time.Millisecond, nil)
	figures("probes")

	clk.Advance(time.Duration(rule.TimeWindow) * time.Second)
	// The probe is held while the rule is reloaded unchanged: it completes
	// on the same breaker.
	e, b := runtime.Entry(context.Background(), name)
	note("held probe: %v", b == nil)
	do("half-open", 2, time.Millisecond, nil)
	load(rule)
	if e != nil {
		clk.Advance(time.Millisecond)
		e.Exit()
	}
	do("recovered", 4, 10*time.Millisecond, nil)
	figures("recovered")

	// A call held across a reload to a stricter rule completes on the new
	// breaker, and back.
	e, b = runtime.Entry(context.Background(), name)
	note("held: %v", b == nil)
	strict := rule
	strict.MinRequestAmount = 1
	load(strict)
	if e != nil {
		clk.Advance(800 * time.Millisecond)
		e.Exit(runtime.WithError(errSolo))
	}
	do("strict", 3, 800*time.Millisecond, errSolo)
	e, b = runtime.Entry(context.Background(), name)
	note("held into base: %v", b == nil)
	load(rule)
	if e != nil {
		e.Exit()
	}
	clk.Advance(time.Duration(rule.StatIntervalMs) * time.Millisecond)
	do("base-again", 8, 800*time.Millisecond, errSolo)
	figures("reloads")

	clk.Advance(time.Minute)
	do("later", 3, time.Millisecond, nil)
	figures("end")
	return out
}

// A resource whose one breaker is its checker (soloChecker) decides every
// call as the general checker of that breaker does: the same passes and
// refusals, transitions and observers' events, probes and block counts,
// for every strategy, across a later slot's refusal of a probe and
// reloads with calls in flight.
func TestSoloCheckerDecidesAsTheGeneralChecker(t *testing.T) {
	clk := clocktest.New()
	t.Cleanup(runtime.SetClock(clk))
	t.Cleanup(func() { _ = LoadRules(nil) })
	later := &laterSwitch{}
	runtime.RegisterSlot("degrade-solo-later", runtime.OrderDegrade+1, later)
	t.Cleanup(func() { runtime.UnregisterSlot("degrade-solo-later") })

	rules := []struct {
		name string
		rule Rule
	}{
		{"error ratio", Rule{Grade: ErrorRatio, Count: 0.5, TimeWindow: 2, MinRequestAmount: 5, StatIntervalMs: 10000}},
		{"error count", Rule{Grade: ErrorCount, Count: 3, TimeWindow: 2, MinRequestAmount: 5, StatIntervalMs: 20000}},
		{"slow ratio", Rule{Grade: SlowRequestRatio, Count: 500, SlowRatioThreshold: 0.4, TimeWindow: 3, MinRequestAmount: 4, StatIntervalMs: 5000}},
		{"default rule", Rule{Resource: "*", Grade: ErrorCount, Count: 2, TimeWindow: 2, MinRequestAmount: 3, StatIntervalMs: 10000}},
	}
	for i, tt := range rules {
		t.Run(tt.name, func(t *testing.T) {
			probe := tt.rule
			if probe.Resource != "*" {
				probe.Resource = fmt.Sprintf("degrade.solo.%d.probe", i)
			}
			require.NoError(t, LoadRules([]Rule{probe}))
			probeName := fmt.Sprintf("degrade.solo.%d.probe", i)
			r := runtime.Declare(runtime.ResourceSpec{Name: probeName})
			ck := degradeSlot{}.Bind(r)
			if probe.Resource == "*" {
				ck = defaultSlot{}.Bind(r)
			}
			require.IsType(t, (*soloChecker)(nil), ck, "the breaker is the checker")

			solo := breakerScenario(t, clk, later, fmt.Sprintf("degrade.solo.%d.solo", i), tt.rule)

			runtime.RegisterSlot("DegradeSlot", runtime.OrderDegrade, generalDegradeSlot{})
			runtime.RegisterSlot("DefaultCircuitBreakerSlot", runtime.OrderDefaultCircuitBreaker, generalDefaultSlot{})
			general := breakerScenario(t, clk, later, fmt.Sprintf("degrade.solo.%d.general", i), tt.rule)
			runtime.RegisterSlot("DegradeSlot", runtime.OrderDegrade, degradeSlot{})
			runtime.RegisterSlot("DefaultCircuitBreakerSlot", runtime.OrderDefaultCircuitBreaker, defaultSlot{})

			assert.Equal(t, general, solo)
		})
	}
}

// A breaker that is or ever was a dry-run one is not its resource's
// checker, nor is one of two.
func TestSoloCheckerNotForDryRunOrTwoBreakers(t *testing.T) {
	clocktest.Install(t)
	t.Cleanup(func() { _ = LoadRules(nil) })
	base := Rule{Resource: "degrade.solo.kind", Grade: ErrorCount, Count: 3, TimeWindow: 2}
	r := runtime.Declare(runtime.ResourceSpec{Name: base.Resource})
	bind := func(rules ...Rule) runtime.Checker {
		require.NoError(t, LoadRules(rules))
		return degradeSlot{}.Bind(r)
	}
	assert.IsType(t, (*soloChecker)(nil), bind(base))
	dry := base
	dry.DryRun = true
	assert.IsType(t, (*checker)(nil), bind(dry))
	assert.IsType(t, (*checker)(nil), bind(base), "the breaker was a dry-run one: its exits ask what it refused")
	other := base
	other.Count = 5
	assert.IsType(t, (*checker)(nil), bind(other, base))
}

// Under concurrent failing calls, a later slot's refusals, and reloads
// that move the resource between its solo breaker and a general checker
// of the same breaker, no probe is lost: once the calls have exited, the
// breaker is not left HALF_OPEN waiting for a probe, and the next good
// call after the retry time closes it.
func TestSoloCheckerLosesNoProbeAcrossReloads(t *testing.T) {
	clk := clocktest.Install(t)
	const name = "degrade.solo.stress"
	base := Rule{Resource: name, Grade: ErrorCount, Count: 0, TimeWindow: 1, MinRequestAmount: 1, StatIntervalMs: 1000}
	second := Rule{Resource: name, Grade: ErrorCount, Count: 1000, TimeWindow: 1, MinRequestAmount: 1, StatIntervalMs: 1000}
	require.NoError(t, LoadRules([]Rule{base}))
	t.Cleanup(func() { _ = LoadRules(nil) })
	later := &laterSwitch{}
	runtime.RegisterSlot("degrade-solo-stress-later", runtime.OrderDegrade+1, later)
	t.Cleanup(func() { runtime.UnregisterSlot("degrade-solo-stress-later") })

	var stop atomic.Bool
	var bg sync.WaitGroup
	bg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			if i%2 == 0 {
				_ = LoadRules([]Rule{base, second})
			} else {
				_ = LoadRules([]Rule{base})
			}
			later.on.Store(i%3 == 0)
			clk.Advance(250 * time.Millisecond)
		}
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 300 {
				if e, b := runtime.Entry(context.Background(), name); b == nil {
					e.Exit(runtime.WithError(errSolo))
				}
			}
		})
	}
	wg.Wait()
	stop.Store(true)
	bg.Wait()
	later.on.Store(false)
	require.NoError(t, LoadRules([]Rule{base}))

	clk.Advance(2 * time.Second)
	e, b := runtime.Entry(context.Background(), name)
	require.Nil(t, b, "after the retry time a probe is admitted")
	e.Exit()
	for _, info := range Breakers() {
		if info.Resource == name {
			assert.Equal(t, Closed, info.State)
		}
	}
	assert.Zero(t, runtime.LookupResource(name).ClusterNode().Threads())
}
