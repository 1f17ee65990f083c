package runtime

import (
	"log/slog"
	"sync/atomic"
)

// disabled is the global switch, inverted so that its zero value is on.
// Entry reads it once per call.
var disabled atomic.Bool

// SetEnabled turns the whole runtime on or off (Java's Constants.ON, which
// the dashboard's setSwitch command sets). Off, every Entry passes at once:
// no rule is checked and nothing is counted (Java's entry without a slot
// chain). On again, rules apply to the next call. Entries admitted
// while on still count their completion when they exit while off, so
// thread counts stay balanced. The runtime starts on.
func SetEnabled(on bool) {
	if disabled.Swap(!on) == !on {
		return
	}
	Logger().Info("sentinel: global switch changed", slog.Bool("enabled", on))
}

// Enabled reports the global switch: false after SetEnabled(false).
func Enabled() bool { return !disabled.Load() }
