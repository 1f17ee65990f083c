//go:build !race

package runtime

import (
	goruntime "runtime"
	_ "unsafe" // for go:linkname
)

// Each processor keeps a few exited entries of its own for Enter, taken
// and given back with the processor pinned, which is all the exclusion a
// per-processor list needs: no atomic instruction, and a fraction of
// sync.Pool's cost (its Get and Put pin the processor too, and then do
// more). What a processor's list has no room for goes to the shared pool,
// entries, which is also where a processor with an empty list looks:
// calls entered on one processor and exited on another still reuse
// entries. Under the race detector entries alone serves (entrycache_race.go):
// the detector cannot see the exclusion pinning gives.

//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// perProcEntries is how many exited entries a processor keeps: enough
// for the calls one goroutine nests or a few interleave.
const perProcEntries = 6

// entryCache is one processor's list. Its 128 bytes keep what two
// processors' lists write on separate cache lines, however the array is
// aligned: a list's fields take 56 bytes.
type entryCache struct {
	n     int
	items [perProcEntries]*pooledEntry
	_     [128 - 8 - perProcEntries*8]byte
}

// entryCaches has one list per processor at start-up; processors added
// later by GOMAXPROCS use entries alone.
var entryCaches = make([]entryCache, min(goruntime.GOMAXPROCS(0), 1024))

// getEntry returns an exited entry, and the processor it was taken on.
func getEntry() (*pooledEntry, int) {
	pid := procPin()
	if pid < len(entryCaches) {
		if c := &entryCaches[pid]; c.n > 0 {
			c.n--
			p := c.items[c.n]
			c.items[c.n] = nil
			procUnpin()
			return p, pid
		}
	}
	procUnpin()
	return entries.Get().(*pooledEntry), pid
}

func putEntry(p *pooledEntry) {
	if pid := procPin(); pid < len(entryCaches) {
		if c := &entryCaches[pid]; c.n < perProcEntries {
			c.items[c.n] = p
			c.n++
			procUnpin()
			return
		}
	}
	procUnpin()
	entries.Put(p)
}
