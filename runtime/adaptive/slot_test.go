package adaptive_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/degrade"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheSlotRunsBetweenFlowAndTheBreakers(t *testing.T) {
	var names []string
	for _, s := range runtime.Slots() {
		names = append(names, s.Name)
	}
	assert.Subset(t, names, []string{"AdaptiveSlot"})
	order := map[string]int{}
	for _, s := range runtime.Slots() {
		order[s.Name] = s.Order
	}
	assert.Less(t, order["FlowSlot"], order["AdaptiveSlot"])
	assert.Less(t, order["AdaptiveSlot"], order["DegradeSlot"])
}

// A new limiter probes first: until its probe ends, MinLimit calls at a
// time; then the limit is InitialLimit and the limiter knows minRTT.
func TestCallsOverTheLimitAreRefusedWithABlockErrorOfTheirOwn(t *testing.T) {
	clk := clocktest.Install(t)
	load(t, adaptive.Rule{Resource: "limit", MinLimit: 2, InitialLimit: 4, ProbeSamples: 4})
	st := state(t, "limit")
	assert.True(t, st.Probing)
	assert.Equal(t, int64(2), st.Limit)

	es := enter(t, "limit", 2)
	_, b := runtime.Entry(context.Background(), "limit")
	require.NotNil(t, b)
	assert.Equal(t, runtime.BlockAdaptive, b.BlockType())
	assert.Equal(t, "adaptive", b.BlockType().String())
	assert.True(t, errors.Is(b, runtime.ErrBlocked))
	assert.Equal(t, int64(2), b.TriggeredValue())
	rule, ok := b.Rule().(*adaptive.Rule)
	require.True(t, ok)
	assert.Equal(t, "limit", rule.Resource)
	assert.Equal(t, int64(2), state(t, "limit").InFlight)
	assert.Equal(t, int64(1), runtime.Declare(runtime.ResourceSpec{Name: "limit"}).BlockCount(runtime.BlockAdaptive))

	clk.Advance(10 * time.Millisecond)
	for _, e := range es {
		e.Exit()
	}
	assert.Equal(t, int64(0), state(t, "limit").InFlight, "exits give the slots back")

	warm(t, clk, "limit", 10*time.Millisecond)
	st = state(t, "limit")
	assert.False(t, st.Probing)
	assert.Equal(t, int64(4), st.Limit, "back to the initial limit after the probe")
	assert.InDelta(t, 10, st.MinRTTMs, 0.01)
	es = enter(t, "limit", 4)
	_, b = runtime.Entry(context.Background(), "limit")
	assert.NotNil(t, b)
	for _, e := range es {
		e.Exit()
	}
}

// Calls that take no longer than the unloaded time, with the limit full,
// raise it; calls that take twice as long halve it (the gradient's
// floor), down to MinLimit.
func TestTheLimitFollowsTheGradient(t *testing.T) {
	clk := clocktest.Install(t)
	load(t, adaptive.Rule{Resource: "gradient", MinLimit: 2, InitialLimit: 10, MaxLimit: 100, ProbeSamples: 4, MinSamples: 2})
	warm(t, clk, "gradient", 10*time.Millisecond)
	clk.Advance(time.Millisecond) // calls started in the probe's last millisecond are not samples
	round := func(rt time.Duration) int64 {
		es := enter(t, "gradient", int(state(t, "gradient").Limit))
		clk.Advance(rt)
		for _, e := range es {
			e.Exit()
		}
		clk.Advance(100 * time.Millisecond) // the interval ends: the next exit recomputes
		enter(t, "gradient", 1)[0].Exit()
		return state(t, "gradient").Limit
	}
	assert.Equal(t, int64(11), round(10*time.Millisecond), "×1.1: the tolerance over the unloaded time")
	assert.Equal(t, int64(12), round(10*time.Millisecond))
	assert.Equal(t, int64(7), round(20*time.Millisecond), "×0.55: 6.655")
	assert.Equal(t, int64(3), round(40*time.Millisecond), "×0.5 at most: 3.33")
	assert.Equal(t, int64(2), round(40*time.Millisecond))
	assert.Equal(t, int64(2), round(40*time.Millisecond), "not below MinLimit")
	require.True(t, state(t, "gradient").Probing, "still slow at the floor: the resource itself is slower, and is measured again")
	clk.Advance(time.Millisecond) // the probe's calls start after its first millisecond
	warm(t, clk, "gradient", 40*time.Millisecond)
	assert.InDelta(t, 40, state(t, "gradient").MinRTTMs, 1)
}

// A limit that callers never fill is not raised: it would be untested.
func TestAnIdleLimitDoesNotGrow(t *testing.T) {
	clk := clocktest.Install(t)
	load(t, adaptive.Rule{Resource: "idle", InitialLimit: 20, ProbeSamples: 4, MinSamples: 4})
	warm(t, clk, "idle", 10*time.Millisecond)
	for range 20 {
		for range 10 {
			e := enter(t, "idle", 1)[0]
			clk.Advance(10 * time.Millisecond)
			e.Exit()
		}
	}
	assert.Equal(t, int64(20), state(t, "idle").Limit)
}

// The probe recurs every ProbeIntervalMs: the limit shown drops to MinLimit and
// comes back.
func TestTheProbeRecurs(t *testing.T) {
	clk := clocktest.Install(t)
	load(t, adaptive.Rule{Resource: "probe", InitialLimit: 6, MinLimit: 2, ProbeIntervalMs: 2000, ProbeSamples: 4, MinSamples: 4})
	warm(t, clk, "probe", 10*time.Millisecond)
	probes := 0
	wasProbing := false
	for range 700 { // 7 s of 10 ms rounds
		st := state(t, "probe")
		if st.Probing && !wasProbing {
			probes++
			assert.Equal(t, int64(2), st.Limit)
		}
		wasProbing = st.Probing
		clk.Advance(time.Millisecond) // a probe's calls start after its first millisecond
		es := enter(t, "probe", int(st.Limit))
		clk.Advance(9 * time.Millisecond)
		for _, e := range es {
			e.Exit()
		}
	}
	assert.Equal(t, 3, probes, "at 1.8 to 2 s intervals (and a few rounds each) in 7 s")
}

func TestADryRunRuleAdmitsAndCountsWhatItWouldRefuse(t *testing.T) {
	clk := clocktest.Install(t)
	load(t, adaptive.Rule{Resource: "dry", MinLimit: 1, InitialLimit: 2, ProbeSamples: 1, DryRun: true})
	r := runtime.Declare(runtime.ResourceSpec{Name: "dry"})
	es := enter(t, "dry", 3)
	assert.Equal(t, int64(0), r.DryRunBlockCount(runtime.BlockAdaptive), "a probe's floor refuses nothing, even in a dry run")
	clk.Advance(10 * time.Millisecond)
	for _, e := range es {
		e.Exit()
	}
	clk.Advance(100 * time.Millisecond)
	enter(t, "dry", 1)[0].Exit() // ends the probe
	require.False(t, state(t, "dry").Probing)
	require.Equal(t, int64(2), state(t, "dry").Limit)

	es = enter(t, "dry", 5)
	assert.Equal(t, int64(3), r.DryRunBlockCount(runtime.BlockAdaptive), "every call past the limit of 2")
	assert.Equal(t, int64(0), r.BlockCount(runtime.BlockAdaptive))
	for _, e := range es {
		e.Exit()
	}
	assert.Equal(t, int64(0), state(t, "dry").InFlight)
}

// hookClock is a hand clock whose Sleep runs a hook: what another
// goroutine would do while a call waits.
type hookClock struct {
	*clocktest.Clock
	onSleep func()
}

func (c *hookClock) Sleep(d time.Duration) {
	c.Clock.Advance(d)
	if c.onSleep != nil {
		c.onSleep()
	}
}

func TestACallOverTheLimitWaitsUpToMaxQueueingTime(t *testing.T) {
	clk := &hookClock{Clock: clocktest.New()}
	t.Cleanup(runtime.SetClock(clk))
	load(t, adaptive.Rule{Resource: "queue", MinLimit: 1, MaxQueueingTimeMs: 5})
	held := enter(t, "queue", 1)[0]

	start := clk.Millis()
	_, b := runtime.Entry(context.Background(), "queue")
	require.NotNil(t, b, "no slot came free")
	assert.Equal(t, int64(5), clk.Millis()-start, "it waited MaxQueueingTimeMs, a millisecond at a time")

	sleeps := 0
	clk.onSleep = func() {
		if sleeps++; sleeps == 3 {
			held.Exit()
		}
	}
	e, b := runtime.Entry(context.Background(), "queue")
	require.Nil(t, b, "the slot came free after 3 ms")
	assert.Equal(t, int64(1), state(t, "queue").InFlight)
	e.Exit()
	clk.onSleep = nil

	held = enter(t, "queue", 1)[0]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, b = runtime.Entry(ctx, "queue")
	assert.NotNil(t, b, "a caller that gave up is refused")
	held.Exit()
}

// A call that waited (here in a throttling flow rule's queue) teaches the
// limiter nothing: its wait is not the resource's work.
func TestACallThatWaitedIsNoSample(t *testing.T) {
	clk := clocktest.Install(t)
	load(t, adaptive.Rule{Resource: "waited", MinLimit: 1, ProbeSamples: 1})
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "waited", Grade: flow.GradeQPS, Count: 10, ControlBehavior: flow.Throttling, MaxQueueingTimeMs: 1000}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	e := enter(t, "waited", 1)[0] // the first call passes at once
	clk.Advance(5 * time.Millisecond)
	e.Exit()
	clk.Advance(time.Second)
	for range 5 {
		e := enter(t, "waited", 1)[0]
		clk.Advance(5 * time.Millisecond)
		e.Exit()
	}
	// (Calls 2..6 came 5 ms apart but the rule spaces them 100 ms: each waited.)
	clk.Advance(3 * time.Second)
	e = enter(t, "waited", 1)[0]
	clk.Advance(5 * time.Millisecond)
	e.Exit()
	assert.InDelta(t, 5, state(t, "waited").MinRTTMs, 0.01, "the waits of 95 ms are not in it")
}

// A call a flow rule refuses never takes a slot; a call a later slot
// refuses (an open breaker) gives its slot back at once.
func TestItComposesWithFlowAndDegradeRules(t *testing.T) {
	clocktest.Install(t)
	load(t, adaptive.Rule{Resource: "composed-flow", MinLimit: 2}, adaptive.Rule{Resource: "composed-degrade", MinLimit: 2})
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "composed-flow", Grade: flow.GradeQPS, Count: 1}}))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	require.NoError(t, degrade.LoadRules([]degrade.Rule{{Resource: "composed-degrade", Grade: degrade.ErrorCount, Count: 1, TimeWindow: 60, MinRequestAmount: 1}}))
	t.Cleanup(func() { _ = degrade.LoadRules(nil) })

	e := enter(t, "composed-flow", 1)[0]
	_, b := runtime.Entry(context.Background(), "composed-flow")
	require.NotNil(t, b)
	assert.Equal(t, runtime.BlockFlow, b.BlockType(), "the second call this second")
	assert.Equal(t, int64(1), state(t, "composed-flow").InFlight, "only the admitted call holds a slot")
	e.Exit()

	for range 2 {
		e := enter(t, "composed-degrade", 1)[0]
		e.SetError(errors.New("boom"))
		e.Exit() // the second opens the breaker
	}
	_, b = runtime.Entry(context.Background(), "composed-degrade")
	require.NotNil(t, b)
	assert.Equal(t, runtime.BlockDegrade, b.BlockType())
	assert.Equal(t, int64(0), state(t, "composed-degrade").InFlight, "the breaker's refusal gave the slot back")
}

// A reload that keeps a resource's rule keeps its limiter: the calls in
// flight still count against the limit, and the limit learnt stays
// within the new bounds.
func TestAReloadKeepsTheLimiter(t *testing.T) {
	clk := clocktest.Install(t)
	load(t, adaptive.Rule{Resource: "reload", MinLimit: 2, InitialLimit: 8, ProbeSamples: 4})
	warm(t, clk, "reload", 10*time.Millisecond)
	es := enter(t, "reload", 8)
	require.NoError(t, adaptive.LoadRules([]adaptive.Rule{{Resource: "reload", MinLimit: 2, MaxLimit: 6, ProbeSamples: 4}}))
	st := state(t, "reload")
	assert.Equal(t, int64(8), st.InFlight)
	assert.Equal(t, int64(6), st.Limit, "brought within the new maxLimit")
	assert.InDelta(t, 10, st.MinRTTMs, 0.01)
	_, b := runtime.Entry(context.Background(), "reload")
	assert.NotNil(t, b)
	for _, e := range es {
		e.Exit()
	}
	assert.Equal(t, int64(0), state(t, "reload").InFlight)
	require.NoError(t, adaptive.LoadRules(nil))
	assert.Empty(t, adaptive.States())
	enter(t, "reload", 20) // no rule, no limit
}

// However many goroutines call at once, no more than the limit are ever in
// flight, and none is left counted.
func TestConcurrentCallsNeverExceedTheLimit(t *testing.T) {
	load(t, adaptive.Rule{Resource: "concurrent", MinLimit: 5, MaxLimit: 5})
	var inFlight, most atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				e, b := runtime.Entry(context.Background(), "concurrent")
				if b != nil {
					continue
				}
				n := inFlight.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				inFlight.Add(-1)
				e.Exit()
			}
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, most.Load(), int64(5))
	assert.Equal(t, int64(0), state(t, "concurrent").InFlight)
}

func TestAnAdmittedCallAllocatesOnlyItsEntry(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	clocktest.Install(t)
	load(t, adaptive.Rule{Resource: "alloc", MinLimit: 10})
	r := runtime.Declare(runtime.ResourceSpec{Name: "alloc"})
	ctx := context.Background()
	allocs := testing.AllocsPerRun(200, func() {
		e, b := r.Entry(ctx)
		if b != nil {
			t.Fatal(b)
		}
		e.Exit()
	})
	assert.LessOrEqual(t, allocs, 1.0)
}

// Refusals and would-be refusals are in the block log, as type adaptive
// with the rule.
func TestRefusalsAreInTheBlockLog(t *testing.T) {
	var buf syncBuffer
	runtime.FlushBlockLog() // earlier tests' blocks
	runtime.SetLogger(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { runtime.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil))) })
	clk := clocktest.Install(t)
	load(t, adaptive.Rule{Resource: "logged", MinLimit: 1}, adaptive.Rule{Resource: "logged-dry", MinLimit: 1, InitialLimit: 1, ProbeSamples: 1, DryRun: true})
	warm(t, clk, "logged-dry", 10*time.Millisecond)
	clk.Advance(100 * time.Millisecond)
	enter(t, "logged-dry", 1)[0].Exit() // the probe's last interval ends
	require.False(t, state(t, "logged-dry").Probing)
	es := enter(t, "logged", 1)
	_, b := runtime.Entry(context.Background(), "logged")
	require.NotNil(t, b)
	es = append(es, enter(t, "logged-dry", 2)...)
	runtime.FlushBlockLog()
	for _, e := range es {
		e.Exit()
	}
	out := buf.String()
	assert.Contains(t, out, `msg="sentinel: blocked"`)
	assert.Contains(t, out, `resource=logged type=adaptive rule="adaptive rule {resource \"logged\", limit 1..1000 from 20, rtt tolerance 1.1}" blocks=1`)
	assert.Contains(t, out, `resource=logged-dry type=adaptive`)
	assert.Contains(t, out, `would block (dry run)`)
}

type syncBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}
