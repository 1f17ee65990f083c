package clock

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fixed struct{ t time.Time }

func (f fixed) Now() time.Time        { return f.t }
func (f fixed) Sleep(d time.Duration) {}

func TestMillisFollowsTheWallClock(t *testing.T) {
	for range 3 {
		before := time.Now().UnixMilli()
		m := Millis()
		after := time.Now().UnixMilli()
		// The cached reading lags by a tick, more on a loaded machine.
		assert.LessOrEqual(t, m, after)
		assert.Greater(t, m, before-5_000)
		time.Sleep(2 * time.Millisecond)
	}
}

func TestSetReplacesTheClockAtOnceAndRestoreGivesItBack(t *testing.T) {
	Millis() // ticking, and its reading read: Millis's inlined case
	Millis()
	at := time.UnixMilli(1_000_000_123)
	restore := Set(fixed{at})
	assert.Equal(t, int64(1_000_000_123), Millis(), "the test clock, not the cached reading")
	assert.Equal(t, int64(1_000_000_123), Millis())
	restore()
	assert.Greater(t, Millis(), int64(1_000_000_123))
}

func TestTheTickerStopsWhenNobodyReadsAndStartsAgain(t *testing.T) {
	Millis()
	require.NotZero(t, atomic.LoadInt64(&cached)&^overridden, "ticking")
	// A second of ticks nobody read stops it; the waits are generous
	// for a loaded machine.
	require.Eventually(t, func() bool { return atomic.LoadInt64(&cached)&^overridden == 0 },
		30*time.Second, 50*time.Millisecond)
	before := time.Now().UnixMilli()
	m := Millis()
	assert.GreaterOrEqual(t, m, before, "read from time.Now while starting")
	assert.NotZero(t, atomic.LoadInt64(&cached)&^overridden, "ticking again")
}

func TestMillisWhileTheClockIsSetAndRestored(t *testing.T) {
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					if m := Millis(); m != 42 {
						assert.Greater(t, m, int64(1_000_000_000_000))
					}
				}
			}
		})
	}
	for range 200 {
		restore := Set(fixed{time.UnixMilli(42)})
		assert.Equal(t, int64(42), Millis())
		restore()
	}
	close(stop)
	wg.Wait()
	assert.Zero(t, atomic.LoadInt64(&cached)&overridden, "restored")
}
