package system

// On Linux the readings come from /proc and the process's cgroup.
func defaultReader() Reader { return newProcReader("/") }
