//go:build unix

package generator

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system: on a
// shared machine it measures the work, where wall time measures the
// neighbours too.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
