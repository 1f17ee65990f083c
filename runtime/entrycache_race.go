//go:build race

package runtime

// Under the race detector the exited entries are kept in entries alone:
// the detector cannot see the exclusion a pinned processor's own list
// relies on (entrycache.go).

func getEntry() *pooledEntry { return entries.Get().(*pooledEntry) }

func putEntry(p *pooledEntry) { entries.Put(p) }
