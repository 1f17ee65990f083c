//go:build race

package runtime

// Under the race detector the exited entries are kept in entries alone:
// the detector cannot see the exclusion a pinned processor's own list
// relies on (entrycache.go).

// getEntry returns an exited entry, and -1: the processor is not known.
func getEntry() (*pooledEntry, int) { return entries.Get().(*pooledEntry), -1 }

func putEntry(p *pooledEntry) { entries.Put(p) }
