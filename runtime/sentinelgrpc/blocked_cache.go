package sentinelgrpc

import (
	"sync/atomic"
	"unsafe"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// blockedCache keeps the *BlockedError of recently seen shared
// BlockErrors, its status with the ErrorInfo detail built once: building
// a status with details costs a dozen allocations, and under overload
// most calls are refused by a few rules. It is direct-mapped by the
// BlockError's address: bounded in size whatever the rules, O(1), and
// without a lock. Two hot rules on one slot rebuild each other's entry,
// at the cost every refusal paid before.
type blockedCache [1 << blockedCacheBits]atomic.Pointer[BlockedError]

const blockedCacheBits = 9 // 512 slots

var blockedErrors blockedCache

// get returns the shared *BlockedError of b, a shared BlockError.
func (c *blockedCache) get(b *runtime.BlockError) *BlockedError {
	// Fibonacci hashing of the address: its low bits are alignment.
	h := uint64(uintptr(unsafe.Pointer(b))) * 0x9E3779B97F4A7C15
	slot := &c[h>>(64-blockedCacheBits)]
	// Its fields are checked, not trusted: a caller that changed the
	// error it was given gets a fresh one built, never its change back.
	if e := slot.Load(); e != nil && e.Block == b && !e.Remote {
		return e
	}
	e := &BlockedError{Block: b, st: localStatus(b)}
	slot.Store(e)
	return e
}
