package stat

import (
	goruntime "runtime"
	_ "unsafe" // for go:linkname
)

// Counters written by every call are striped by processor: each P adds to
// its own cache line and readers sum the stripes, so parallel callers do not
// fight over shared lines. runtime.procPin is the cheapest way to learn the
// current P (2-3 ns); it is on the Go runtime's list of linknamed symbols
// kept for widely used packages.

//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// maxStripes bounds the memory of a striped window on many-core machines.
const maxStripes = 16

// stripeCount is the number of stripes, a power of two, fixed at start-up.
var stripeCount = func() int {
	n := 1
	for n < goruntime.GOMAXPROCS(0) && n < maxStripes {
		n <<= 1
	}
	return n
}()

// Stripes is the number of stripes striped counters use: a power of two,
// at least GOMAXPROCS at start-up, at most 16.
func Stripes() int { return stripeCount }

// Stripe returns the current processor's stripe, in [0, Stripes()), for
// counters of other packages striped the same way.
func Stripe() int { return stripe(stripeCount) }

// stripe returns the caller's stripe index for a window of n stripes.
func stripe(n int) int {
	if n == 1 {
		return 0
	}
	p := procPin()
	procUnpin()
	return p & (n - 1)
}
