package runtime

import (
	"hash/maphash"
	"sync/atomic"
)

// Past MaxResources, a call to a name with no resource asks every slot
// whether its rules name it (namedByRule: exact names, then patterns), so
// that a flood of other names cannot switch a rule off. That answer holds
// until the rules or slots change, so it is asked once per name and rule
// generation: the names counted on the overflow resource are remembered
// here, and a later call to one goes there at the cost of a hash and a
// load. The table is fixed (overflowSlots keyed 64-bit hashes, 32 KiB,
// one name a slot, a newer name taking the slot of an older): a flood of
// more distinct names than slots asks again for names it pushed out,
// each within the bounded cost of one match (see internal/ruleutil).
// Two names with the same keyed hash, which callers cannot aim at
// without the process's random seed, would share a verdict.
const overflowSlots = 4096

type overflowTable struct {
	gen   uint64
	names [overflowSlots]atomic.Uint64 // keyed hash of a name, 0 for none
}

var (
	overflowSeed  = maphash.MakeSeed()
	overflowNames atomic.Pointer[overflowTable]
)

func overflowHash(name string) uint64 { return maphash.String(overflowSeed, name) | 1 }

// knownOverflow reports whether name was sent to the overflow resource at
// the current generation.
func knownOverflow(name string) bool {
	t := overflowNames.Load()
	if t == nil || t.gen != generation.Load() {
		return false
	}
	h := overflowHash(name)
	return t.names[h%overflowSlots].Load() == h
}

// rememberOverflow records that name went to the overflow resource on the
// rules of generation gen (read before they were asked).
func rememberOverflow(name string, gen uint64) {
	t := overflowNames.Load()
	if t == nil || t.gen != gen {
		if gen != generation.Load() {
			return // the rules changed meanwhile: the verdict may be stale
		}
		next := &overflowTable{gen: gen}
		if !overflowNames.CompareAndSwap(t, next) {
			if t = overflowNames.Load(); t == nil || t.gen != gen {
				return
			}
		} else {
			t = next
		}
	}
	h := overflowHash(name)
	t.names[h%overflowSlots].Store(h)
}
