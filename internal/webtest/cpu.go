package webtest

import "testing"

// CPUTimer starts measuring the process's CPU time, user and system, GC
// workers included; the function it returns reports it per op as
// "cpu-ns/op". On a machine busy with other work, wall time per op counts
// the time the benchmark waited for a core; CPU time counts only the work.
// Call it after setup, and the function after the loop.
func CPUTimer(b *testing.B) func() {
	start := processCPU()
	return func() {
		if start < 0 || b.N == 0 {
			return
		}
		b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}
