package flow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// generalSlot binds what slot binds, except that where slot binds a
// resource's gate block as its checker (soloGate), it binds the general
// checker the block is bound with: the same rule on the same gate.
type generalSlot struct{ slot }

func (generalSlot) Bind(r *runtime.Resource) runtime.Checker {
	ck := slot{}.Bind(r)
	if s, ok := ck.(*soloGate); ok {
		return s.bound.Load()
	}
	return ck
}

// switchRefuser is a slot after the flow slot that refuses every call
// while on is set.
type switchRefuser struct{ on atomic.Bool }

func (s *switchRefuser) Bind(*runtime.Resource) runtime.Checker { return s }
func (s *switchRefuser) Check(c *runtime.Call) *runtime.BlockError {
	if s.on.Load() {
		return c.Block(runtime.BlockCustom, nil, nil)
	}
	return nil
}
func (*switchRefuser) Exit(*runtime.Call) {}

// sleepClock is a hand clock whose Sleep passes no time but records the
// wait, so that prioritized calls borrow at one instant.
type sleepClock struct {
	*clocktest.Clock
	slept []time.Duration
}

func (c *sleepClock) Sleep(d time.Duration) { c.slept = append(c.slept, d) }

// soloScenario drives one resource through what a one-rule resource
// meets: bursts and batches, prioritized borrowing, a later slot's
// refusals, reloads that keep the rule's state, make it dry-run, add a
// second rule, change its count, and calls held across those reloads.
// It returns what each call and the resource's figures showed, the
// resource's name written R.
func soloScenario(t *testing.T, clk *sleepClock, later *switchRefuser, name string, base Rule) []string {
	t.Helper()
	var out []string
	var t0 int64
	ctx := context.Background()
	app1 := runtime.EnterContext(ctx, "solo-ctx-app1", "app1")
	app2 := runtime.EnterContext(ctx, "solo-ctx-app2", "app2")
	rule := func(mod func(*Rule)) Rule {
		r := base
		r.Resource = name
		if r.Regex {
			r.Resource = "^" + regexp.QuoteMeta(name) + "$"
		}
		if mod != nil {
			mod(&r)
		}
		return r
	}
	load := func(rs ...Rule) { require.NoError(t, LoadRules(rs)) }
	note := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		line = strings.ReplaceAll(line, fmt.Sprintf("%q", "^"+regexp.QuoteMeta(name)+"$"), `"R"`)
		out = append(out, strings.ReplaceAll(line, name, "R"))
	}
	blockText := func(b *runtime.BlockError) string {
		if b == nil {
			return "pass"
		}
		r, _ := b.Rule().(*Rule)
		var limitApp string
		var count float64
		var dry bool
		if r != nil {
			limitApp, count, dry = r.LimitApp, r.Count, r.DryRun
		}
		return fmt.Sprintf("block %v %s app=%s count=%v dry=%v", b.BlockType(), b.Resource(), limitApp, count, dry)
	}
	enter := func(label string, ctx context.Context, opts ...runtime.EntryOption) *runtime.SentinelEntry {
		clk.slept = nil
		e, b := runtime.Entry(ctx, name, opts...)
		note("%s @%d: %s slept=%v", label, clk.Millis()-t0, blockText(b), clk.slept)
		return e
	}
	do := func(label string, n int, ctx context.Context, opts ...runtime.EntryOption) {
		for i := range n {
			if e := enter(fmt.Sprintf("%s#%d", label, i), ctx, opts...); e != nil {
				e.Exit()
			}
		}
	}
	figures := func(label string) {
		r := runtime.LookupResource(name)
		now := clk.Millis()
		w := r.ClusterNode().SecondWindow()
		last, ok := r.LastBlock()
		var lastRule string
		if last.Rule != nil {
			lastRule = fmt.Sprint(last.Rule)
		}
		note("%s: node pass=%d block=%d threads=%d flowBlocks=%d dryBlocks=%d last=%v/%v/%s/%d",
			label, w.Sum(now, stat.Pass), w.Sum(now, stat.Block), r.ClusterNode().Threads(),
			r.BlockCount(runtime.BlockFlow), r.DryRunBlockCount(runtime.BlockFlow), ok, last.Type, lastRule, last.Second*1000-t0)
		for i, cr := range current.Load().exact[name] {
			s := cr.states.byResource[name]
			if s == nil || s.gates == nil || s.gates.single == nil || s.gates.single.passes == nil {
				continue
			}
			g := s.gates.single.passes
			note("%s: rule %d gate pass=%d waiting=%d", label, i, g.Sum(now, stat.Pass), g.Waiting(now, stat.Pass))
		}
	}
	step := func(d time.Duration) { clk.Advance(d) }

	// Align to a second, then a burst and batches.
	step(time.Duration(1000-clk.Millis()%1000) * time.Millisecond)
	t0 = clk.Millis()
	step(100 * time.Millisecond)
	load(rule(nil))
	do("burst", 5, ctx)
	do("batch2", 2, ctx, runtime.WithBatchCount(2))
	do("origin", 2, app1)
	figures("burst")

	// Prioritized calls over the count borrow from the window to come.
	step(500 * time.Millisecond)
	do("prio", 3, ctx, runtime.WithPrioritized())
	do("prio-batch", 2, ctx, runtime.WithPrioritized(), runtime.WithBatchCount(2))
	figures("prio")

	// A later slot refuses: the pass is given back.
	step(2 * time.Second)
	later.on.Store(true)
	do("later", 3, ctx)
	do("later-prio", 1, ctx, runtime.WithPrioritized())
	later.on.Store(false)
	do("after-later", 5, ctx)
	figures("later")

	// A reload of the same rule keeps its state mid-window.
	step(2 * time.Second)
	do("before-reload", 2, ctx)
	held := enter("held", ctx)
	load(rule(nil))
	do("same-rule", 5, ctx)
	if held != nil {
		held.Exit()
	}
	figures("same-rule")

	// Dry-run, with a call held across the change both ways.
	step(2 * time.Second)
	held = enter("held-into-dry", ctx)
	load(rule(func(r *Rule) { r.DryRun = true }))
	if held != nil {
		held.Exit()
	}
	do("dry", 6, ctx)
	held = enter("held-out-of-dry", ctx)
	later.on.Store(true)
	do("dry-later", 2, ctx)
	later.on.Store(false)
	load(rule(nil))
	if held != nil {
		held.Exit()
	}
	do("enforcing-again", 4, ctx)
	figures("dry")

	// A second rule, on one origin, and back.
	step(2 * time.Second)
	held = enter("held-into-two", ctx)
	load(rule(nil), rule(func(r *Rule) { r.LimitApp, r.Count = "app1", 1 }))
	if held != nil {
		held.Exit()
	}
	do("two-app1", 3, app1)
	do("two-app2", 4, app2)
	do("two-prio", 2, app1, runtime.WithPrioritized())
	later.on.Store(true)
	do("two-later", 2, app1)
	later.on.Store(false)
	held = enter("held-out-of-two", ctx)
	load(rule(nil))
	if held != nil {
		held.Exit()
	}
	do("one-again", 4, app2)
	figures("two")

	// A changed count starts a new state, seeded from the node.
	step(2 * time.Second)
	do("before-count", 2, ctx)
	step(300 * time.Millisecond)
	load(rule(func(r *Rule) { r.Count = base.Count + 1 }))
	do("new-count", 5, ctx)
	do("new-count-prio", 2, ctx, runtime.WithPrioritized())
	figures("count")

	// Much later, everything has drained.
	step(10 * time.Second)
	do("drained", 6, ctx)
	figures("drained")
	return out
}

// A resource whose one rule binds its gate block as its checker decides
// every call as the general checker of the same rule does, and leaves the
// same figures: the same passes, refusals and their BlockError, borrowed
// passes and waits, block counts and last block, gate counts, across a
// later slot's refusals and every kind of reload.
func TestSoloGateDecidesAsTheGeneralChecker(t *testing.T) {
	clk := &sleepClock{Clock: clocktest.New()}
	t.Cleanup(runtime.SetClock(clk))
	t.Cleanup(func() { _ = LoadRules(nil) })
	later := &switchRefuser{}
	runtime.RegisterSlot("flow-solo-later", runtime.OrderFlow+1, later)
	t.Cleanup(func() { runtime.UnregisterSlot("flow-solo-later") })

	rules := []struct {
		name string
		rule Rule
	}{
		{"count 3", Rule{Grade: GradeQPS, Count: 3}},
		{"count 2.5", Rule{Grade: GradeQPS, Count: 2.5}},
		{"count 0", Rule{Grade: GradeQPS, Count: 0}},
		{"count 1", Rule{Grade: GradeQPS, Count: 1}},
		{"unknown behavior, as Reject", Rule{Grade: GradeQPS, Count: 3, ControlBehavior: 9}},
		{"limitApp default spelt out", Rule{Grade: GradeQPS, Count: 2, LimitApp: LimitAppDefault}},
		{"regex rule", Rule{Grade: GradeQPS, Count: 3, Regex: true}},
	}
	for i, tt := range rules {
		t.Run(tt.name, func(t *testing.T) {
			soloName := fmt.Sprintf("flow.solo.%d.solo", i)
			generalName := fmt.Sprintf("flow.solo.%d.general", i)

			probe := tt.rule
			probeName := fmt.Sprintf("flow.solo.%d.probe", i)
			probe.Resource = probeName
			if probe.Regex {
				probe.Resource = "^" + regexp.QuoteMeta(probeName) + "$"
			}
			require.NoError(t, LoadRules([]Rule{probe}))
			_, isSolo := slot{}.Bind(runtime.Declare(runtime.ResourceSpec{Name: probeName})).(*soloGate)
			require.True(t, isSolo, "the rule takes the solo path")

			solo := soloScenario(t, clk, later, soloName, tt.rule)

			runtime.RegisterSlot("FlowSlot", runtime.OrderFlow, generalSlot{})
			general := soloScenario(t, clk, later, generalName, tt.rule)
			runtime.RegisterSlot("FlowSlot", runtime.OrderFlow, slot{})

			assert.Equal(t, general, solo)
		})
	}
}

// Only a local, enforcing, Direct QPS Reject rule on every caller takes
// the solo path.
func TestSoloGateOnlyForOneDirectEnforcingQPSGate(t *testing.T) {
	clocktest.Install(t)
	t.Cleanup(func() { _ = LoadRules(nil) })
	fallback := &ClusterConfig{FlowID: 7, FallbackToLocalWhenFail: true}
	tests := []struct {
		name  string
		rules []Rule
		solo  bool
	}{
		{"QPS Reject default", []Rule{{Grade: GradeQPS, Count: 5}}, true},
		{"thread grade", []Rule{{Grade: GradeThread, Count: 5}}, false},
		{"named origin", []Rule{{Grade: GradeQPS, Count: 5, LimitApp: "app1"}}, false},
		{"other", []Rule{{Grade: GradeQPS, Count: 5, LimitApp: LimitAppOther}}, false},
		{"relate", []Rule{{Grade: GradeQPS, Count: 5, Strategy: Relate, RefResource: "flow.solo.kind.ref"}}, false},
		{"chain", []Rule{{Grade: GradeQPS, Count: 5, Strategy: Chain, RefResource: "flow-solo-ctx"}}, false},
		{"warm-up", []Rule{{Grade: GradeQPS, Count: 5, ControlBehavior: WarmUp, WarmUpPeriodSec: 10}}, false},
		{"rate limiter", []Rule{{Grade: GradeQPS, Count: 5, ControlBehavior: Throttling, MaxQueueingTimeMs: 500}}, false},
		{"warm-up rate limiter", []Rule{{Grade: GradeQPS, Count: 5, ControlBehavior: WarmUpThrottling, WarmUpPeriodSec: 10, MaxQueueingTimeMs: 500}}, false},
		{"dry-run", []Rule{{Grade: GradeQPS, Count: 5, DryRun: true}}, false},
		{"cluster with fallback", []Rule{{Grade: GradeQPS, Count: 5, ClusterMode: true, ClusterConfig: fallback}}, false},
		{"two rules", []Rule{{Grade: GradeQPS, Count: 5}, {Grade: GradeQPS, Count: 3, LimitApp: "app1"}}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("flow.solo.kind.%d", i)
			rs := make([]Rule, len(tt.rules))
			for j, r := range tt.rules {
				r.Resource = name
				rs[j] = r
			}
			require.NoError(t, LoadRules(rs))
			ck := slot{}.Bind(runtime.Declare(runtime.ResourceSpec{Name: name}))
			require.NotNil(t, ck)
			_, isSolo := ck.(*soloGate)
			assert.Equal(t, tt.solo, isSolo, "%T", ck)
		})
	}
}

// Under concurrent calls, a later slot's refusals, and reloads that move
// the resource between its solo gate and a general checker on the same
// gate, the gate admits at most its count in the window, and every pass a
// later slot refused is given back: the gate counts what the node counts.
func TestSoloGateCountsStayExactAcrossReloads(t *testing.T) {
	clk := clocktest.Install(t) // one window: the clock stands still
	const name = "flow.solo.stress"
	base := Rule{Resource: name, Grade: GradeQPS, Count: 60}
	second := Rule{Resource: name, Grade: GradeQPS, Count: 1, LimitApp: "nobody-calls"}
	require.NoError(t, LoadRules([]Rule{base}))
	t.Cleanup(func() { _ = LoadRules(nil) })
	runtime.RegisterSlot("flow-solo-stress-later", runtime.OrderFlow+1, &laterRefuser{})
	t.Cleanup(func() { runtime.UnregisterSlot("flow-solo-stress-later") })

	var stop atomic.Bool
	var reloads sync.WaitGroup
	reloads.Go(func() {
		for i := 0; !stop.Load(); i++ {
			if i%2 == 0 {
				_ = LoadRules([]Rule{base, second})
			} else {
				_ = LoadRules([]Rule{base})
			}
		}
	})
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 300 {
				if e, b := runtime.Entry(context.Background(), name); b == nil {
					admitted.Add(1)
					e.Exit()
				}
			}
		})
	}
	wg.Wait()
	stop.Store(true)
	reloads.Wait()

	now := clk.Millis()
	var gate *stat.Window
	for _, cr := range current.Load().exact[name] {
		if cr.rule.LimitApp == LimitAppDefault {
			gate = cr.states.byResource[name].gates.single.passes
		}
	}
	require.NotNil(t, gate)
	node := runtime.LookupResource(name).ClusterNode()
	assert.EqualValues(t, 60, gate.Sum(now, stat.Pass), "the count, no more")
	assert.Equal(t, admitted.Load(), gate.Sum(now, stat.Pass), "every pass a later slot refused was given back")
	assert.Equal(t, admitted.Load(), node.SecondWindow().Sum(now, stat.Pass))
	assert.Zero(t, node.Threads())
}

// randomScenario drives resource name with a random sequence of calls,
// batches, prioritized calls, a later slot's refusals, clock steps, held
// calls and reloads, drawn from seed, and returns what each call showed.
func randomScenario(t *testing.T, clk *sleepClock, later *switchRefuser, name string, base Rule, seed uint64) []string {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 0))
	ctxs := []context.Context{
		context.Background(),
		runtime.EnterContext(context.Background(), "solo-rnd-app1", "app1"),
		runtime.EnterContext(context.Background(), "solo-rnd-app2", "app2"),
	}
	clk.Advance(time.Duration(1000-clk.Millis()%1000) * time.Millisecond)
	t0 := clk.Millis()
	base.Resource = name
	sets := [][]Rule{{base}, {base}, {base}, {base}}
	dry := base
	dry.DryRun = true
	sets[1] = []Rule{dry}
	origin := base
	origin.LimitApp, origin.Count = "app1", 1
	sets[2] = []Rule{base, origin}
	more := base
	more.Count++
	sets[3] = []Rule{more}
	require.NoError(t, LoadRules(sets[0]))
	var out []string
	var held []*runtime.SentinelEntry
	later.on.Store(false)
	for i := range 400 {
		switch op := rnd.IntN(20); {
		case op < 3:
			clk.Advance(time.Duration(rnd.IntN(700)) * time.Millisecond)
		case op < 4:
			later.on.Store(!later.on.Load())
		case op < 5:
			k := rnd.IntN(len(sets) + 2)
			if k >= len(sets) {
				k = 0 // the common rule, most often
			}
			require.NoError(t, LoadRules(sets[k]))
			out = append(out, fmt.Sprintf("%d: load %d", i, k))
		case op < 6 && len(held) > 0:
			held[0].Exit()
			held = held[1:]
		default:
			opts := []runtime.EntryOption{runtime.WithBatchCount(1 + rnd.IntN(2))}
			if rnd.IntN(4) == 0 {
				opts = append(opts, runtime.WithPrioritized())
			}
			clk.slept = nil
			e, b := runtime.Entry(ctxs[rnd.IntN(len(ctxs))], name, opts...)
			line := fmt.Sprintf("%d @%d: ", i, clk.Millis()-t0)
			if b != nil {
				r, _ := b.Rule().(*Rule)
				if r != nil {
					line += fmt.Sprintf("block %v %s %v %v", b.BlockType(), r.LimitApp, r.Count, r.DryRun)
				} else {
					line += fmt.Sprintf("block %v", b.BlockType())
				}
			} else {
				line += "pass"
			}
			out = append(out, fmt.Sprintf("%s slept=%v", line, clk.slept))
			if e != nil {
				if len(held) < 3 && rnd.IntN(3) == 0 {
					held = append(held, e)
				} else {
					e.Exit()
				}
			}
		}
	}
	for _, e := range held {
		e.Exit()
	}
	later.on.Store(false)
	r := runtime.LookupResource(name)
	w := r.ClusterNode().SecondWindow()
	out = append(out, fmt.Sprintf("end: pass=%d block=%d threads=%d flowBlocks=%d dryBlocks=%d",
		w.Sum(clk.Millis(), stat.Pass), w.Sum(clk.Millis(), stat.Block), r.ClusterNode().Threads(),
		r.BlockCount(runtime.BlockFlow), r.DryRunBlockCount(runtime.BlockFlow)))
	require.NoError(t, LoadRules(nil))
	return out
}

// Random sequences decide the same with the solo gate as with the general
// checker.
func TestSoloGateDecidesAsTheGeneralCheckerAtRandom(t *testing.T) {
	clk := &sleepClock{Clock: clocktest.New()}
	t.Cleanup(runtime.SetClock(clk))
	t.Cleanup(func() { _ = LoadRules(nil) })
	later := &switchRefuser{}
	runtime.RegisterSlot("flow-solo-rnd-later", runtime.OrderFlow+1, later)
	t.Cleanup(func() { runtime.UnregisterSlot("flow-solo-rnd-later") })
	for seed := range uint64(40) {
		base := Rule{Grade: GradeQPS, Count: float64(1 + seed%5)}
		solo := randomScenario(t, clk, later, fmt.Sprintf("flow.solo.rnd.%d.solo", seed), base, seed)
		runtime.RegisterSlot("FlowSlot", runtime.OrderFlow, generalSlot{})
		general := randomScenario(t, clk, later, fmt.Sprintf("flow.solo.rnd.%d.general", seed), base, seed)
		runtime.RegisterSlot("FlowSlot", runtime.OrderFlow, slot{})
		require.Equal(t, general, solo, "seed %d", seed)
	}
}
