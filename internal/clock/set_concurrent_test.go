package clock

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Set called from two goroutines at once, one setting a clock and one
// restoring the default, leaves Millis reading whichever clock is in
// force, as Now does: the overridden flag Millis reads must never be left
// disagreeing with the clock Set installed last. The interleaving that
// did so (one Set's two writes around another's) is a few nanoseconds
// wide: without setMu this test failed about one run in twenty.
func TestMillisAgreesWithNowAfterConcurrentSets(t *testing.T) {
	defer Set(nil)
	set := fixed{time.UnixMilli(42)}
	for round := range 20_000 {
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Go(func() {
			<-start
			for range 200 {
				Set(set)
			}
		})
		wg.Go(func() {
			<-start
			for range 200 {
				Set(nil)
			}
		})
		close(start)
		wg.Wait()
		if replaced.Load() != nil {
			require.Equal(t, int64(42), Millis(), "round %d: the clock set last", round)
		} else {
			require.Greater(t, Millis(), time.Now().UnixMilli()-5_000, "round %d: the default clock", round)
		}
	}
}
