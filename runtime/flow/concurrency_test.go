package flow_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	callers         = 32
	callsPerCaller  = 25
	concurrentSteps = 8 // 250 ms apart: two steps per 500 ms bucket
)

// hammer runs callers goroutines that each make callsPerCaller calls at
// once, released together, and returns the admitted calls per caller
// origin.
func hammer(resource string, origins []string) map[string]int {
	var (
		start sync.WaitGroup
		done  sync.WaitGroup
		mu    sync.Mutex
		got   = map[string]int{}
	)
	start.Add(1)
	for i := range callers {
		origin := origins[i%len(origins)]
		ctx := from(origin)
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			n := 0
			for range callsPerCaller {
				if call(ctx, resource) {
					n++
				}
			}
			mu.Lock()
			got[origin] += n
			mu.Unlock()
		}()
	}
	start.Done()
	done.Wait()
	return got
}

// A Direct Reject QPS rule never admits more than count in a window, with
// 32 goroutines calling at once (Java's check-then-count lets them all
// read count-1 and pass). Admissions are counted per 500 ms bucket; every
// window of two buckets holds at most count, and the first holds exactly
// count, since demand is far above it.
func TestNoOvershootQPSUnderConcurrentCallers(t *testing.T) {
	tests := []struct {
		name     string
		limitApp string
		origins  []string // callers' origins; each is limited on its own for "other"
		limited  []string // origins whose admissions are bounded
	}{
		{"default limits everyone together", "default", []string{"", "appA", "appB"}, []string{"*"}},
		{"a specific origin", "appA", []string{"appA"}, []string{"appA"}},
		{"other, per origin", "other", []string{"appB", "appC", "appD"}, []string{"appB", "appC", "appD"}},
	}
	const count = 40
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := "no-overshoot-qps-" + string(rune('a'+i))
			c := load(t, flow.Rule{Resource: res, Grade: flow.GradeQPS, Count: count, LimitApp: tt.limitApp})
			buckets := map[string][]int{}
			for step := range concurrentSteps {
				got := hammer(res, tt.origins)
				total := 0
				for o, n := range got {
					total += n
					if step%2 == 0 {
						buckets[o] = append(buckets[o], n)
					} else {
						buckets[o][len(buckets[o])-1] += n
					}
				}
				if step%2 == 0 {
					buckets["*"] = append(buckets["*"], total)
				} else {
					buckets["*"][len(buckets["*"])-1] += total
				}
				// The node agrees: it never counted more than count.
				now := runtime.NowMillis()
				cn := runtime.LookupResource(res).ClusterNode()
				for _, o := range tt.limited {
					node := cn.Node
					if o != "*" {
						node = cn.OriginNode(o)
					}
					require.LessOrEqual(t, node.PassQPS(now), float64(count), "origin %s step %d", o, step)
				}
				c.Advance(250 * time.Millisecond)
			}
			for _, o := range tt.limited {
				b := buckets[o]
				require.Equal(t, count, b[0], "origin %s fills its first window exactly: %v", o, b)
				for j := 1; j < len(b); j++ {
					require.LessOrEqual(t, b[j-1]+b[j], count, "origin %s, buckets %d and %d: %v", o, j-1, j, b)
				}
			}
		})
	}
}

// With a later slot refusing a third of the calls at random, the passes
// of refused calls are given back: admitted calls still never exceed
// count per window, and refused calls do not eat the budget.
func TestNoOvershootQPSWhenALaterSlotRefuses(t *testing.T) {
	const res, count = "no-overshoot-refused", 30
	var refusals atomic.Int64
	runtime.RegisterSlot("flow-test-random-refuser", runtime.OrderDegrade+1, refuseEvery{res, func() bool {
		if rand.IntN(3) == 0 {
			refusals.Add(1)
			return true
		}
		return false
	}})
	t.Cleanup(func() { runtime.UnregisterSlot("flow-test-random-refuser") })
	c := load(t, qps(res, count))
	var perStep []int
	for range concurrentSteps {
		perStep = append(perStep, hammer(res, []string{""})[""])
		c.Advance(250 * time.Millisecond)
	}
	for j := 3; j < len(perStep); j += 2 {
		require.LessOrEqual(t, perStep[j-3]+perStep[j-2]+perStep[j-1]+perStep[j], count, "%v", perStep)
	}
	assert.Greater(t, perStep[0], count/2, "refused calls gave their passes back: %v", perStep)
	assert.Positive(t, refusals.Load())
}

// A thread rule never has more than count calls in flight, with 32
// goroutines entering, holding and exiting at once.
func TestNoOvershootThreadsUnderConcurrentCallers(t *testing.T) {
	tests := []struct {
		name     string
		limitApp string
		origin   string
	}{
		{"default", "default", ""},
		{"a specific origin", "appA", "appA"},
		{"other", "other", "appB"},
	}
	const count = 5
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := "no-overshoot-threads-" + string(rune('a'+i))
			load(t, flow.Rule{Resource: res, Grade: flow.GradeThread, Count: count, LimitApp: tt.limitApp})
			ctx := from(tt.origin)
			var inFlight, peak, admitted atomic.Int64
			var start, done sync.WaitGroup
			start.Add(1)
			for range callers {
				done.Add(1)
				go func() {
					defer done.Done()
					start.Wait()
					for range callsPerCaller {
						e, b := runtime.Entry(ctx, res)
						if b != nil {
							continue
						}
						admitted.Add(1)
						n := inFlight.Add(1)
						for {
							p := peak.Load()
							if n <= p || peak.CompareAndSwap(p, n) {
								break
							}
						}
						for range 3 {
							runtimeYield() // hold the call while others try
						}
						inFlight.Add(-1)
						e.Exit()
					}
				}()
			}
			start.Done()
			done.Wait()
			assert.LessOrEqual(t, peak.Load(), int64(count))
			assert.Positive(t, admitted.Load())
			assert.Equal(t, int64(0), runtime.LookupResource(res).ClusterNode().Threads())
			// every thread token came back.
			held := make([]*runtime.SentinelEntry, 0, count)
			for range count {
				e, b := runtime.Entry(ctx, res)
				require.Nil(t, b)
				held = append(held, e)
			}
			_, b := runtime.Entry(ctx, res)
			assert.NotNil(t, b)
			for _, e := range held {
				e.Exit()
			}
		})
	}
}

// A rule set reloaded while callers run: no race, no lost thread token,
// and admissions stay near the largest count. A new gate starts from the
// node's passes, which miss only the calls between their check and their
// count, and calls already running on the previous rule set finish on it:
// at most one of each per caller.
func TestReloadUnderConcurrentCallers(t *testing.T) {
	const res = "reload-under-load"
	load(t, qps(res, 10))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_ = flow.LoadRules([]flow.Rule{qps(res, float64(5+i%10)), {Resource: res, Grade: flow.GradeThread, Count: 3}})
		}
	}()
	got := hammer(res, []string{"", "appA"})
	close(stop)
	wg.Wait()
	assert.LessOrEqual(t, got[""]+got["appA"], 14+2*callers)
	assert.Equal(t, int64(0), runtime.LookupResource(res).ClusterNode().Threads())
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: res, Grade: flow.GradeThread, Count: 3}}))
	assert.Equal(t, callsPerCaller, calls(context.Background(), res, callsPerCaller), "no thread token leaked")
}
