//go:build !race

package degrade

import "unsafe" // for go:linkname, and the word size

// A bucket's cell s is written by processor s alone, with the processor
// pinned, which is all the exclusion one writer needs: a plain add, where
// an atomic one (a locked instruction, about 5 ns on the benchmark
// machine) would cost more than the pinning. Readers load cells
// atomically, and a 64-bit word is never seen half written on the 64-bit
// machines this applies to. Processors past the cells (GOMAXPROCS raised
// after start-up, or above 16), and 32-bit machines, count on early
// atomically; under the race detector every count is atomic
// (count_race.go), since it cannot see the exclusion pinning gives.

//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// countPastMin counts one completion past the bucket's first minRequests.
// stripe, the call's, is for the race detector's build.
func (b *bucket) countPastMin(stripe int) {
	pid := procPin()
	if unsafe.Sizeof(uintptr(0)) == 8 && uint(pid) < uint(b.n) {
		b.cell(pid).n++
		procUnpin()
		return
	}
	procUnpin()
	b.early.Add(1)
}
