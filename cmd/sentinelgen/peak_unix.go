//go:build unix

package main

import (
	"runtime"
	"syscall"
)

// peakMemory is the process's peak resident set size in bytes (the go
// command's processes, which loading runs, not included).
func peakMemory() (uint64, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil || ru.Maxrss <= 0 {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return uint64(ru.Maxrss), true // bytes there, kilobytes elsewhere
	}
	return uint64(ru.Maxrss) << 10, true
}
