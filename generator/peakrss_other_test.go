//go:build !linux

package generator

// The peak resident set size is read from /proc on linux only; elsewhere
// benchmarks do not report it.
func resetPeakRSS() bool { return false }

func peakRSS() (uint64, bool) { return 0, false }
