package generator

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
)

// resetPeakRSS returns the heap's free pages to the system and resets the
// process's peak resident set size (VmHWM), so that peakRSS then reports
// the peak of what runs in between, over the live data before it.
func resetPeakRSS() bool {
	runtime.GC()
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS is the process's peak resident set size since resetPeakRSS, in
// bytes.
func peakRSS() (uint64, bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	_, rest, ok := bytes.Cut(status, []byte("\nVmHWM:"))
	if !ok {
		return 0, false
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(line), []byte(" kB"))), 10, 64)
	if err != nil {
		return 0, false
	}
	return kb << 10, true
}
