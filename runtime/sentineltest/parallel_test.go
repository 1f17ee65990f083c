package sentineltest_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/sentineltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var allBlockTypes = []runtime.BlockType{
	runtime.BlockFlow, runtime.BlockDegrade, runtime.BlockSystem,
	runtime.BlockAuthority, runtime.BlockParamFlow, runtime.BlockCustom,
}

// Parallel subtests that block distinct resources see their own blocks
// only, while the others place and lift theirs.
func TestParallelSubtestsBlockingDistinctResourcesDoNotLeak(t *testing.T) {
	sentineltest.Reset(t)
	const n = 8
	t.Run("group", func(t *testing.T) {
		for i := range n {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				mine := fmt.Sprintf("%s/blocked-%d", t.Name(), i)
				free := fmt.Sprintf("%s/free-%d", t.Name(), i)
				want := allBlockTypes[i%len(allBlockTypes)]
				// Nested subtests place and lift blocks while the siblings run.
				for round := range 20 {
					t.Run(fmt.Sprint(round), func(t *testing.T) {
						sentineltest.Block(t, mine, want)
						for range 10 {
							b := call(mine)
							require.NotNil(t, b)
							require.Equal(t, want, b.BlockType(), "the block of %s", mine)
							require.Equal(t, mine, b.Resource())
							require.Nil(t, call(free), "another test's block never reaches %s", free)
						}
					})
					require.Nil(t, call(mine), "lifted when the subtest ended")
				}
			})
		}
	})
	for i := range n {
		assert.Nil(t, call(fmt.Sprintf("%s/group/%d/blocked-%d", t.Name(), i, i)))
	}
	assert.NotContains(t, slotNames(), "SentinelTestBlockSlot")
}

// Parallel subtests may each call Reset: they share one hand clock instead
// of swapping clocks under each other, and the parent's clock is back when
// the last of them ends.
func TestParallelSubtestsThatResetShareTheClock(t *testing.T) {
	sentineltest.Reset(t)
	parent := sentineltest.Clock(t)
	var mu sync.Mutex
	clocks := map[any]bool{}
	t.Run("group", func(t *testing.T) {
		for i := range 4 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				sentineltest.Reset(t)
				c := sentineltest.Clock(t)
				mu.Lock()
				clocks[c] = true
				mu.Unlock()
				res := fmt.Sprintf("%s/r", t.Name())
				sentineltest.Block(t, res, runtime.BlockFlow)
				for range 50 {
					require.Equal(t, c.Millis(), runtime.NowMillis(), "the runtime stays on this test's clock")
					require.NotNil(t, call(res))
				}
			})
		}
	})
	assert.NotContains(t, clocks, parent, "the parallel tests got fresh statistics")
	assert.Equal(t, parent.Millis(), runtime.NowMillis(), "the parent's clock is back")
	assert.Same(t, parent, sentineltest.Clock(t))
}

// Calls run on other goroutines while blocks come and go.
func TestBlocksComeAndGoWhileCallsRun(t *testing.T) {
	sentineltest.Reset(t)
	res := t.Name()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]int{}
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				kind := "admitted"
				if b := call(res); b != nil {
					kind = b.BlockType().String()
				}
				mu.Lock()
				seen[kind]++
				mu.Unlock()
			}
		})
	}
	for i := range 30 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			sentineltest.Block(t, res, allBlockTypes[i%2])
			require.NotNil(t, call(res))
		})
	}
	close(stop)
	wg.Wait()
	for kind := range seen {
		assert.Contains(t, []string{"admitted", "flow", "degrade"}, kind)
	}
	assert.Nil(t, call(res))
	assert.EqualValues(t, 0, runtime.LookupResource(res).ClusterNode().Threads(), "every admitted call exited")
}
