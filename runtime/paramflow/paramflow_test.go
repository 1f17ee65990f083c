package paramflow_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.DiscardHandler))
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"))
}

// load installs a hand-stepped clock and rules, cleared when the test ends.
func load(t *testing.T, rules ...paramflow.Rule) *clocktest.Clock {
	t.Helper()
	c := clocktest.New()
	t.Cleanup(runtime.SetClock(c))
	require.NoError(t, paramflow.LoadRules(rules))
	t.Cleanup(func() { require.NoError(t, paramflow.LoadRules(nil)) })
	return c
}

func call(res string, args ...any) (*runtime.SentinelEntry, *runtime.BlockError) {
	return runtime.Entry(context.Background(), res, runtime.WithArgs(args...))
}

// passes reports whether a call with args passes, exiting it at once.
func passes(res string, args ...any) bool {
	e, b := call(res, args...)
	if b != nil {
		return false
	}
	e.Exit()
	return true
}

// run makes n calls and returns how many passed.
func run(n int, res string, args ...any) int {
	ok := 0
	for range n {
		if passes(res, args...) {
			ok++
		}
	}
	return ok
}

// Java's ParamFlowDefaultCheckerTest.testParamFlowDefaultCheckSingleQpsWithBurst.
func TestTokenBucketWithBurst(t *testing.T) {
	r := paramflow.NewRule("pf-burst", 0, 5)
	r.BurstCount = 3
	c := load(t, r)
	steps := []struct {
		advance time.Duration
		passes  int
	}{
		{0, 8},                       // a full bucket: count + burst
		{1002 * time.Millisecond, 5}, // 1002*5/1000 = 5 tokens
		{1002 * time.Millisecond, 5},
		{2000 * time.Millisecond, 8}, // 10 tokens, capped at 8
		{1002 * time.Millisecond, 5},
	}
	for i, s := range steps {
		c.Advance(s.advance)
		for n := range s.passes {
			require.True(t, passes("pf-burst", "valueA"), "step %d call %d", i, n+1)
		}
		require.False(t, passes("pf-burst", "valueA"), "step %d: the call after %d is refused", i, s.passes)
	}
}

// Java's testParamFlowDefaultCheckSingleQps and QpsInDifferentDuration.
func TestTokenBucketRefillsOnlyAfterTheDuration(t *testing.T) {
	t.Run("count 5 per second", func(t *testing.T) {
		c := load(t, paramflow.NewRule("pf-qps", 0, 5))
		assert.Equal(t, 5, run(6, "pf-qps", "valueA"))
		c.Advance(3 * time.Second)
		assert.Equal(t, 5, run(6, "pf-qps", "valueA"))
	})
	t.Run("count 5 per 60 seconds", func(t *testing.T) {
		r := paramflow.NewRule("pf-60s", 0, 5)
		r.DurationInSec = 60
		c := load(t, r)
		assert.Equal(t, 5, run(6, "pf-60s", "helloWorld"))
		for _, d := range []time.Duration{1, 10, 30} {
			c.Advance(d * time.Second)
			assert.False(t, passes("pf-60s", "helloWorld"), "after %ds more", d)
		}
		c.Advance(30 * time.Second)
		assert.Equal(t, 5, run(6, "pf-60s", "helloWorld"))
	})
	t.Run("long idle with a high count does not overflow", func(t *testing.T) {
		c := load(t, paramflow.NewRule("pf-long", 0, 25000))
		assert.Equal(t, 2, run(2, "pf-long", "valueA"))
		c.Advance(24 * time.Hour)
		assert.Equal(t, 2, run(2, "pf-long", "valueA"))
		c.Advance(48 * time.Hour)
		assert.Equal(t, 2, run(2, "pf-long", "valueA"))
	})
	t.Run("batch counts take that many tokens", func(t *testing.T) {
		load(t, paramflow.NewRule("pf-batch", 0, 5))
		e, b := runtime.Entry(context.Background(), "pf-batch", runtime.WithArgs("v"), runtime.WithBatchCount(4))
		require.Nil(t, b)
		e.Exit()
		_, b = runtime.Entry(context.Background(), "pf-batch", runtime.WithArgs("v"), runtime.WithBatchCount(2))
		require.NotNil(t, b)
		assert.True(t, passes("pf-batch", "v"))
		_, b = runtime.Entry(context.Background(), "pf-batch", runtime.WithArgs("w"), runtime.WithBatchCount(6))
		assert.NotNil(t, b, "more than the bucket holds is refused")
	})
}

func TestValuesHaveTheirOwnBuckets(t *testing.T) {
	load(t, paramflow.NewRule("pf-values", 0, 2))
	assert.Equal(t, 2, run(3, "pf-values", int64(1)))
	assert.Equal(t, 2, run(3, "pf-values", int64(2)))
	assert.Equal(t, 2, run(3, "pf-values", "1"), "the string \"1\" is another value than the integer 1")
}

func TestBlockErrorCarriesTheRuleAndArgument(t *testing.T) {
	load(t, paramflow.NewRule("pf-block", 1, 0))
	_, b := call("pf-block", "ctx-free", []int{7, 8})
	require.NotNil(t, b)
	assert.Equal(t, runtime.BlockParamFlow, b.BlockType())
	assert.Equal(t, []int{7, 8}, b.TriggeredValue())
	r, ok := b.Rule().(*paramflow.Rule)
	require.True(t, ok)
	assert.Equal(t, "pf-block", r.ResourceName())
	assert.Equal(t, "default", r.LimitApp, "a blank limitApp becomes default on load")
}

type OrderID int64

func TestItemsGiveValuesTheirOwnCount(t *testing.T) {
	r := paramflow.NewRule("pf-items", 0, 1)
	r.ParamFlowItemList = []paramflow.Item{
		{Object: "vip", Count: 3},
		{Object: "7", ClassType: "int", Count: 0},
	}
	load(t, r)
	assert.Equal(t, 3, run(5, "pf-items", "vip"), "the VIP value has a higher count")
	assert.Equal(t, 1, run(5, "pf-items", "normal"))
	for _, seven := range []any{7, int8(7), int16(7), int32(7), int64(7), uint(7), uint8(7), uint16(7), uint32(7), uint64(7), OrderID(7)} {
		assert.False(t, passes("pf-items", seven), "%T 7 matches the int item with count 0", seven)
	}
	assert.True(t, passes("pf-items", "7"), "the string \"7\" is not the int 7")
	assert.True(t, passes("pf-items", 8))
}

func TestItemClassTypesMatchGoValues(t *testing.T) {
	tests := []struct {
		name, object, classType string
		arg                     any
		matches                 bool
	}{
		{"long matches int", "2000000000", "long", 2000000000, true},
		{"long matches int64", "9000000000", "long", int64(9000000000), true},
		{"java.lang.Long matches uint64", "42", "java.lang.Long", uint64(42), true},
		{"short matches int16", "-3", "short", int16(-3), true},
		{"byte matches uint8? no: -1 is not 255", "-1", "byte", uint8(255), false},
		{"Integer matches int", "12", "java.lang.Integer", 12, true},
		{"int does not match a float", "12", "int", 12.0, false},
		{"double matches float64", "11.11", "double", 11.11, true},
		{"double matches float32", "11.11", "double", float32(11.11), true},
		{"float matches float64", "0.5", "float", 0.5, true},
		{"Float matches float32", "3.3", "java.lang.Float", float32(3.3), true},
		{"boolean matches bool", "true", "boolean", true, true},
		{"Boolean false", "FALSE", "java.lang.Boolean", false, true},
		{"boolean does not match the string", "true", "boolean", "true", false},
		{"char matches a rune", "a", "char", 'a', true},
		{"char matches a byte", "a", "char", byte('a'), true},
		{"char matches a one-character string", "é", "char", "é", true},
		{"char takes the first character", "xyz", "char", "x", true},
		{"String matches strings", "11.11", "java.lang.String", "11.11", true},
		{"blank class is a string", "11.11", "", "11.11", true},
		{"blank class does not match a float", "11.11", "", 11.11, false},
		{"unknown class is a string", "abc", "com.example.Sku", "abc", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := "pf-class-" + string(rune('a'+i))
			r := paramflow.NewRule(res, 0, 100)
			r.ParamFlowItemList = []paramflow.Item{{Object: tt.object, ClassType: tt.classType, Count: 0}}
			load(t, r)
			assert.Equal(t, !tt.matches, passes(res, tt.arg))
		})
	}
}

// stillClock is a clock whose Sleep records the wait instead of passing
// time, so a test sees what each throttled call would wait.
type stillClock struct {
	*clocktest.Clock
	mu     sync.Mutex
	sleeps []time.Duration
}

func (c *stillClock) Sleep(d time.Duration) {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
}

func TestThrottlingSpacesCalls(t *testing.T) {
	t.Run("no queueing: one call per 200 ms", func(t *testing.T) {
		r := paramflow.NewRule("pf-throttle", 0, 5)
		r.ControlBehavior = paramflow.BehaviorRateLimiter
		c := load(t, r)
		assert.True(t, passes("pf-throttle", "valueA"))
		assert.False(t, passes("pf-throttle", "valueA"))
		c.Advance(199 * time.Millisecond)
		assert.False(t, passes("pf-throttle", "valueA"))
		c.Advance(time.Millisecond)
		assert.True(t, passes("pf-throttle", "valueA"))
		assert.True(t, passes("pf-throttle", "valueB"), "values are spaced independently")
		// Over one second at 1 ms steps, five calls pass (Java's test).
		c.Advance(time.Second)
		ok := 0
		for range 990 {
			if passes("pf-throttle", "valueA") {
				ok++
			}
			c.Advance(time.Millisecond)
		}
		assert.Equal(t, 5, ok)
	})
	t.Run("queueing waits for the turn", func(t *testing.T) {
		r := paramflow.NewRule("pf-queue", 0, 5)
		r.ControlBehavior = paramflow.BehaviorRateLimiter
		r.MaxQueueingTimeMs = 500
		c := load(t, r)
		sc := &stillClock{Clock: c}
		defer runtime.SetClock(sc)()
		for range 3 {
			assert.True(t, passes("pf-queue", "v"))
		}
		assert.False(t, passes("pf-queue", "v"), "the next turn is 600 ms away, past 500")
		assert.Equal(t, []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}, sc.sleeps)
	})
	t.Run("a done context gives up the wait", func(t *testing.T) {
		r := paramflow.NewRule("pf-queue-ctx", 0, 5)
		r.ControlBehavior = paramflow.BehaviorRateLimiter
		r.MaxQueueingTimeMs = 500
		load(t, r)
		assert.True(t, passes("pf-queue-ctx", "v"))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, b := runtime.Entry(ctx, "pf-queue-ctx", runtime.WithArgs("v"))
		assert.NotNil(t, b)
	})
	t.Run("batch count scales the spacing", func(t *testing.T) {
		r := paramflow.NewRule("pf-throttle-batch", 0, 10)
		r.ControlBehavior = paramflow.BehaviorRateLimiter
		c := load(t, r)
		assert.True(t, passes("pf-throttle-batch", "v"))
		c.Advance(200 * time.Millisecond)
		_, b := runtime.Entry(context.Background(), "pf-throttle-batch", runtime.WithArgs("v"), runtime.WithBatchCount(3))
		assert.NotNil(t, b, "3 tokens cost 300 ms")
		c.Advance(100 * time.Millisecond)
		e, b := runtime.Entry(context.Background(), "pf-throttle-batch", runtime.WithArgs("v"), runtime.WithBatchCount(3))
		require.Nil(t, b)
		e.Exit()
	})
}

func TestThreadGradeLimitsCallsInFlight(t *testing.T) {
	r := paramflow.NewRule("pf-thread", 0, 2)
	r.Grade = paramflow.GradeThread
	r.ParamFlowItemList = []paramflow.Item{{Object: "solo", Count: 1}}
	load(t, r)
	a, b1 := call("pf-thread", "x")
	require.Nil(t, b1)
	b, b2 := call("pf-thread", "x")
	require.Nil(t, b2)
	assert.False(t, passes("pf-thread", "x"))
	assert.True(t, passes("pf-thread", "y"))
	a.Exit()
	c, b3 := call("pf-thread", "x")
	require.Nil(t, b3)
	b.Exit()
	c.Exit()
	assert.Equal(t, 2, countOpen(t, "pf-thread", 5, "x"))

	s, bs := call("pf-thread", "solo")
	require.Nil(t, bs)
	assert.False(t, passes("pf-thread", "solo"), "the item's count is 1")
	s.Exit()
	assert.True(t, passes("pf-thread", "solo"))
}

// countOpen opens n calls, counts those admitted, then exits them.
func countOpen(t *testing.T, res string, n int, args ...any) int {
	t.Helper()
	var open []*runtime.SentinelEntry
	for range n {
		if e, b := call(res, args...); b == nil {
			open = append(open, e)
		}
	}
	for _, e := range open {
		e.Exit()
	}
	return len(open)
}

// blockFlag is a slot after ParamFlow that refuses calls while set.
type blockFlag struct{ on *atomic.Bool }

func (s blockFlag) Bind(*runtime.Resource) runtime.Checker { return s }
func (s blockFlag) Check(c *runtime.Call) *runtime.BlockError {
	if s.on.Load() {
		return c.Block(runtime.BlockCustom, nil, nil)
	}
	return nil
}
func (blockFlag) Exit(*runtime.Call) {}

func TestThreadCountIsReleasedWhenALaterSlotBlocks(t *testing.T) {
	r := paramflow.NewRule("pf-thread-later", 0, 1)
	r.Grade = paramflow.GradeThread
	load(t, r)
	var on atomic.Bool
	runtime.RegisterSlot("pf-test-blocker", runtime.OrderFlow, blockFlag{&on})
	defer runtime.UnregisterSlot("pf-test-blocker")
	on.Store(true)
	for range 3 {
		_, b := call("pf-thread-later", "x")
		require.NotNil(t, b)
		require.Equal(t, runtime.BlockCustom, b.BlockType())
	}
	on.Store(false)
	assert.Equal(t, 1, countOpen(t, "pf-thread-later", 3, "x"))
}

func TestSliceArgumentsPassOnlyIfEveryElementPasses(t *testing.T) {
	t.Run("token bucket", func(t *testing.T) {
		load(t, paramflow.NewRule("pf-slice", 0, 1))
		assert.True(t, passes("pf-slice", []int{1, 2}))
		assert.False(t, passes("pf-slice", []int{3, 1}), "1 has no token left")
		assert.False(t, passes("pf-slice", 3), "as in Java, 3's token was taken before 1 was refused")
		assert.True(t, passes("pf-slice", []string{"a"}))
		assert.False(t, passes("pf-slice", "a"))
		assert.True(t, passes("pf-slice", [2]int64{5, 6}))
		assert.False(t, passes("pf-slice", int32(6)))
		assert.True(t, passes("pf-slice", []any{"m", 9, nil}))
		assert.False(t, passes("pf-slice", 9))
		assert.True(t, passes("pf-slice", []OrderID{10}))
		assert.False(t, passes("pf-slice", 10))
		assert.True(t, passes("pf-slice", []int{}), "an empty list passes")
	})
	t.Run("thread grade gives back the elements taken before a refusal", func(t *testing.T) {
		r := paramflow.NewRule("pf-slice-thread", 0, 1)
		r.Grade = paramflow.GradeThread
		load(t, r)
		hold, b := call("pf-slice-thread", "busy")
		require.Nil(t, b)
		assert.False(t, passes("pf-slice-thread", []string{"free", "busy"}))
		assert.True(t, passes("pf-slice-thread", "free"), "free was given back")
		e, b := call("pf-slice-thread", []string{"p", "q"})
		require.Nil(t, b)
		assert.False(t, passes("pf-slice-thread", "q"))
		e.Exit()
		hold.Exit()
		assert.True(t, passes("pf-slice-thread", "q"))
		assert.True(t, passes("pf-slice-thread", "busy"))
	})
}

type user struct {
	id   int64
	name string
}

func (u user) ParamKey() any { return u.id }

type anonymous struct{}

func (anonymous) ParamKey() any { return nil }

func TestKeyerSuppliesTheKey(t *testing.T) {
	r := paramflow.NewRule("pf-keyer", 0, 1)
	r.ParamFlowItemList = []paramflow.Item{{Object: "99", ClassType: "long", Count: 0}}
	load(t, r)
	assert.True(t, passes("pf-keyer", user{1, "ann"}))
	assert.False(t, passes("pf-keyer", user{1, "bob"}), "the same key")
	assert.True(t, passes("pf-keyer", user{2, "ann"}))
	assert.False(t, passes("pf-keyer", user{99, "vip"}), "items match the key")
	assert.False(t, passes("pf-keyer", 2), "the key is the integer 2")
	for range 3 {
		assert.True(t, passes("pf-keyer", anonymous{}), "a nil key is not limited")
	}
	var nobody *user // ParamKey has a value receiver: calling it panics
	assert.True(t, passes("pf-keyer", nobody), "a panicking ParamKey is not limited")
	assert.True(t, passes("pf-keyer", nobody))
	assert.True(t, passes("pf-keyer", []user{{3, ""}, {4, ""}}))
	assert.False(t, passes("pf-keyer", user{4, ""}), "Keyer elements of a list")
}

func TestUnkeyableArgumentsAreNotLimited(t *testing.T) {
	load(t, paramflow.NewRule("pf-unkeyable", 0, 0))
	for _, arg := range []any{nil, map[string]int{"a": 1}, func() {}, [][]int{{1}}, struct{ v any }{1}} {
		assert.True(t, passes("pf-unkeyable", arg), "%T", arg)
	}
	p := &user{}
	assert.False(t, passes("pf-unkeyable", p), "pointers are keyed by identity")
	assert.False(t, passes("pf-unkeyable", struct{ a, b int }{1, 2}), "plain structs are keyed by value")
}

func TestParamIdx(t *testing.T) {
	t.Run("negative counts from the end", func(t *testing.T) {
		load(t, paramflow.NewRule("pf-idx", -1, 1))
		assert.True(t, passes("pf-idx", "a", "last"))
		assert.False(t, passes("pf-idx", "b", "last"))
		assert.False(t, passes("pf-idx", "last"), "with one argument, -1 is argument 0")
		assert.True(t, passes("pf-idx", "x", "y", "other"))
	})
	t.Run("out of range passes", func(t *testing.T) {
		load(t, paramflow.NewRule("pf-idx-range", -3, 0), paramflow.NewRule("pf-idx-range", 2, 0))
		assert.True(t, passes("pf-idx-range", "a", "b"))
		assert.True(t, passes("pf-idx-range"))
		assert.False(t, passes("pf-idx-range", "a", "b", "c"), "-3 and 2 both name argument 0.. 2")
	})
	t.Run("each rule reads its own argument", func(t *testing.T) {
		load(t, paramflow.NewRule("pf-idx-two", 0, 1), paramflow.NewRule("pf-idx-two", 1, 2))
		assert.True(t, passes("pf-idx-two", "u", 1))
		assert.True(t, passes("pf-idx-two", "v", 1))
		assert.False(t, passes("pf-idx-two", "w", 1), "argument 1's count is 2")
		assert.False(t, passes("pf-idx-two", "u", 2), "argument 0's count is 1")
	})
}

func TestNeedsArgsOnlyWithARule(t *testing.T) {
	load(t, paramflow.NewRule("pf-needs", 0, 1))
	assert.True(t, runtime.Declare(runtime.ResourceSpec{Name: "pf-needs"}).NeedsArgs())
	assert.False(t, runtime.Declare(runtime.ResourceSpec{Name: "pf-needs-not"}).NeedsArgs())
	assert.True(t, passes("pf-needs"), "a call without arguments passes")
}

func TestRegexRulesKeepStatePerResource(t *testing.T) {
	r := paramflow.NewRule("pf-re-.*", 0, 1)
	r.Regex = true
	load(t, r)
	assert.True(t, passes("pf-re-a", "v"))
	assert.False(t, passes("pf-re-a", "v"))
	assert.True(t, passes("pf-re-b", "v"), "another resource has its own state")
	assert.True(t, passes("xpf-re-a", "v"), "the pattern must match the whole name")
	assert.True(t, passes("xpf-re-a", "v"))
}

func TestClusterModeWithoutTokenServer(t *testing.T) {
	cluster := func(res string, fallback bool) paramflow.Rule {
		r := paramflow.NewRule(res, 0, 1)
		r.ClusterMode = true
		r.ClusterConfig = &paramflow.ClusterConfig{FlowID: 7, FallbackToLocalWhenFail: fallback}
		return r
	}
	load(t, cluster("pf-cluster", false), cluster("pf-cluster-local", true))
	assert.Equal(t, 5, run(5, "pf-cluster", "v"), "without fallback the rule limits nothing")
	assert.Equal(t, 1, run(5, "pf-cluster-local", "v"), "with fallback it limits locally")
}

func TestReloadingAnEqualRuleKeepsItsState(t *testing.T) {
	r := paramflow.NewRule("pf-reload", 0, 1)
	load(t, r)
	assert.True(t, passes("pf-reload", "v"))
	require.NoError(t, paramflow.LoadRules([]paramflow.Rule{r, paramflow.NewRule("pf-other", 0, 1)}))
	assert.False(t, passes("pf-reload", "v"), "the equal rule kept its bucket")
	r.Count = 2
	require.NoError(t, paramflow.LoadRules([]paramflow.Rule{r}))
	assert.True(t, passes("pf-reload", "v"), "a changed rule starts afresh")
}

func TestEqualRulesCountOnce(t *testing.T) {
	r := paramflow.NewRule("pf-dup", 0, 1)
	load(t, r, r)
	assert.Equal(t, 1, run(3, "pf-dup", "v"))
	assert.Len(t, paramflow.Rules(), 2, "Rules returns the rules as loaded")
}

func TestStateIsBoundedUnderAFloodOfValues(t *testing.T) {
	load(t, paramflow.NewRule("pf-flood", 0, 1))
	capacity := paramflow.CapacityFor(1)
	require.Equal(t, 4000, capacity)
	require.True(t, passes("pf-flood", "hot"))
	for i := range 100_000 {
		passes("pf-flood", i)
		if i%10 == 0 {
			passes("pf-flood", "hot") // a value in use stays
		}
	}
	held := paramflow.ValuesHeld(0, "pf-flood")
	t.Logf("values held after 100,000 distinct values: %d (capacity %d)", held, capacity)
	assert.LessOrEqual(t, held, capacity)
	assert.Greater(t, held, capacity/2)
	assert.False(t, passes("pf-flood", "hot"), "the hot value kept its (empty) bucket through the flood")
}

func TestConcurrentCallsNeverExceedTheCount(t *testing.T) {
	qps := paramflow.NewRule("pf-race", 0, 100)
	thread := paramflow.NewRule("pf-race-thread", 0, 3)
	thread.Grade = paramflow.GradeThread
	load(t, qps, thread)
	var passed, inFlight, maxInFlight atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if passes("pf-race", "hot") {
					passed.Add(1)
				}
				if e, b := call("pf-race-thread", "hot"); b == nil {
					n := inFlight.Add(1)
					for {
						m := maxInFlight.Load()
						if n <= m || maxInFlight.CompareAndSwap(m, n) {
							break
						}
					}
					inFlight.Add(-1)
					e.Exit()
				}
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(100), passed.Load())
	assert.LessOrEqual(t, maxInFlight.Load(), int64(3))
}
