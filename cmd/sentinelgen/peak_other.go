//go:build !unix

package main

// peakMemory is not reported on systems without getrusage.
func peakMemory() (uint64, bool) { return 0, false }
