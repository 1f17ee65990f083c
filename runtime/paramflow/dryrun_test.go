package paramflow_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/paramflow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pfWouldBlocks(res string) int64 {
	r := runtime.LookupResource(res)
	if r == nil {
		return 0
	}
	return r.DryRunBlockCount(runtime.BlockParamFlow)
}

func dryRun(r paramflow.Rule) paramflow.Rule {
	r.DryRun = true
	return r
}

// A dry-run token-bucket rule admits every call and counts, per value and
// refill after refill, the blocks the enforcing rule makes.
func TestDryRunTokenBucketCountsTheEnforcingRulesBlocks(t *testing.T) {
	enf := paramflow.NewRule("pf-dry-enf", 0, 3)
	enf.BurstCount = 1
	dry := dryRun(enf)
	dry.Resource = "pf-dry-dry"
	clk := load(t, enf, dry)
	base := pfWouldBlocks("pf-dry-dry")
	var blocks int64
	steps := []struct {
		n     int
		value string
		after time.Duration
	}{{5, "a", 0}, {2, "b", 300 * time.Millisecond}, {6, "a", 800 * time.Millisecond}, {1, "a", 200 * time.Millisecond},
		{9, "b", 1500 * time.Millisecond}, {4, "a", 0}, {3, "c", 2 * time.Second}, {7, "a", 0}}
	for i, s := range steps {
		blocks += int64(s.n - run(s.n, "pf-dry-enf", s.value))
		require.Equal(t, s.n, run(s.n, "pf-dry-dry", s.value), "step %d: the dry run admits every call", i)
		require.Equal(t, blocks, pfWouldBlocks("pf-dry-dry")-base, "step %d", i)
		clk.Advance(s.after)
	}
	assert.Positive(t, blocks)
	assert.Zero(t, runtime.LookupResource("pf-dry-dry").BlockCount(runtime.BlockParamFlow))
}

// A dry-run thread-grade rule holds only the values of the calls it
// admitted; a call it refused, list arguments included, gives nothing back
// when it exits.
func TestDryRunThreadGradeCountsTheEnforcingRulesBlocks(t *testing.T) {
	enf := paramflow.NewRule("pf-dry-thr-enf", 0, 1)
	enf.Grade = paramflow.GradeThread
	dry := dryRun(enf)
	dry.Resource = "pf-dry-thr-dry"
	load(t, enf, dry)
	base := pfWouldBlocks("pf-dry-thr-dry")
	held := map[string][2]*runtime.SentinelEntry{}
	var blocks int64
	open := func(id string, arg any) {
		e, b := call("pf-dry-thr-enf", arg)
		if b != nil {
			blocks++
		}
		d, b := call("pf-dry-thr-dry", arg)
		require.Nil(t, b, id)
		held[id] = [2]*runtime.SentinelEntry{e, d}
	}
	exit := func(id string) {
		held[id][0].Exit()
		held[id][1].Exit()
	}
	check := func(step string) {
		t.Helper()
		require.Equal(t, blocks, pfWouldBlocks("pf-dry-thr-dry")-base, step)
	}
	open("1", "x")
	open("2", []string{"y", "x"}) // y is taken, then x refuses: y is given back
	check("list refused on its second value")
	open("3", "y") // y is free
	check("y was given back")
	exit("2") // held nothing
	open("4", "x")
	check("x still held by 1")
	exit("1")
	exit("3")
	exit("4")
	open("5", []string{"x", "y"})
	check("both free")
	exit("5")
	assert.EqualValues(t, 2, blocks)
}

// Switching dryRun keeps the per-value state: a bucket drained in dry run
// is drained when the rule enforces.
func TestDryRunToggleKeepsTheBuckets(t *testing.T) {
	r := dryRun(paramflow.NewRule("pf-dry-toggle", 0, 2))
	clk := load(t, r)
	assert.Equal(t, 5, run(5, "pf-dry-toggle", "v"))
	r.DryRun = false
	require.NoError(t, paramflow.LoadRules([]paramflow.Rule{r}))
	assert.False(t, passes("pf-dry-toggle", "v"), "the bucket is still empty")
	clk.Advance(1100 * time.Millisecond)
	assert.Equal(t, 2, run(5, "pf-dry-toggle", "v"))
}

// A dry-run throttling rule never makes a call wait.
func TestDryRunThrottlingNeverWaits(t *testing.T) {
	clk := &stillClock{Clock: load(t)}
	defer runtime.SetClock(clk)()
	r := paramflow.NewRule("pf-dry-queue", 0, 10)
	r.ControlBehavior = paramflow.BehaviorRateLimiter
	r.MaxQueueingTimeMs = 250
	r.DryRun = true
	require.NoError(t, paramflow.LoadRules([]paramflow.Rule{r}))
	base := pfWouldBlocks("pf-dry-queue")
	assert.Equal(t, 6, run(6, "pf-dry-queue", "v"))
	assert.Empty(t, clk.sleeps, "no call waited")
	assert.Equal(t, base+3, pfWouldBlocks("pf-dry-queue"), "calls 4 to 6 would wait 300 ms or more")
}

// Concurrent calls through a dry-run thread-grade rule, some blocked by a
// later slot, leave every value's count at zero.
func TestDryRunThreadGradeConcurrentNoLeak(t *testing.T) {
	r := dryRun(paramflow.NewRule("pf-dry-conc", 0, 2))
	r.Grade = paramflow.GradeThread
	load(t, r)
	var on atomic.Bool
	runtime.RegisterSlot("pf-dry-blocker", runtime.OrderFlow, blockFlag{&on})
	t.Cleanup(func() { runtime.UnregisterSlot("pf-dry-blocker") })
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				if g == 0 {
					on.Store(i%2 == 0)
				}
				arg := any("x")
				if i%3 == 0 {
					arg = []string{"x", "y", "x"}
				}
				if e, b := call("pf-dry-conc", arg); b == nil {
					e.Exit()
				}
			}
		})
	}
	wg.Wait()
	on.Store(false)
	for _, v := range []string{"x", "y"} {
		base := pfWouldBlocks("pf-dry-conc")
		var open []*runtime.SentinelEntry
		for range 2 {
			e, b := call("pf-dry-conc", v)
			require.Nil(t, b)
			open = append(open, e)
		}
		assert.Equal(t, base, pfWouldBlocks("pf-dry-conc"), "%s: no count leaked", v)
		e, b := call("pf-dry-conc", v)
		require.Nil(t, b)
		assert.Equal(t, base+1, pfWouldBlocks("pf-dry-conc"), "%s: no count given back twice", v)
		e.Exit()
		for _, e := range open {
			e.Exit()
		}
	}
}
