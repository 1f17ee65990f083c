//go:build unix

package webtest

import "syscall"

// processCPU is the process's CPU time so far in nanoseconds, -1 when
// unknown.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
