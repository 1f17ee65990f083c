package runtime

import (
	"time"

	"github.com/sentinelgen/sentinelgen/internal/clock"
)

// Clock is the runtime's time source. Throttling waits pass through Sleep,
// so a hand-stepped test clock (package clocktest) controls them too.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// SetClock replaces the runtime's clock until restore is called; nil
// restores the default. The default clock is a cached millisecond clock, as
// Java's TimeUtil, so the hot path never calls time.Now.
func SetClock(c Clock) (restore func()) { return clock.Set(c) }

// NowMillis is the runtime clock's time in Unix milliseconds: what rule
// slots should read instead of time.Now.
func NowMillis() int64 { return clock.Millis() }
