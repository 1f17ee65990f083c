//go:build amd64 || arm64

// The figures here are those of 64-bit machines with 64-byte cache lines.

package runtime

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// The entry is a call's one allocation, and on these machines an
// allocation costs in proportion to its bytes: it must stay in the
// 128-byte size class. A field added to Call or SentinelEntry has to find
// room in padding (see entryFlags) or take the place of another.
func TestEntryFitsItsSizeClass(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(SentinelEntry{}), uintptr(128))
}

// A call reads its chain (up to three Checkers) from one cache line: the
// fields it reads are in the first 64 bytes of a 128-byte object, and
// objects of that size class start on a line.
func TestAShortChainIsOneCacheLine(t *testing.T) {
	var c boundChain
	assert.Equal(t, uintptr(128), unsafe.Sizeof(c))
	assert.Equal(t, uintptr(64), unsafe.Offsetof(c.long), "gen, n, the exit run and short fill the first line")
}

// A call reads, of its DefaultNode in the default context, the pointer
// to its statistics and their last 24 bytes (package stat's layout test):
// one cache line.
func TestADefaultNodeIsOneLine(t *testing.T) {
	for i := range 8 { // objects of a size class not a multiple of 64 would straddle some
		n := newResource(fmt.Sprintf("layout-default-node-%d", i)).newDefaultNode()
		first := uintptr(unsafe.Pointer(&n.Node)) / 64
		hot := unsafe.Add(unsafe.Pointer(n.Node), unsafe.Sizeof(*n.Node)-24)
		assert.Equal(t, first, uintptr(hot)/64)
		assert.Equal(t, first, (uintptr(unsafe.Pointer(n.Node))+unsafe.Sizeof(*n.Node)-1)/64)
	}
}

// What every call reads of its Resource (the chain, the default node, the
// cluster's statistics, the kinds) is the first line of a line-aligned
// allocation.
func TestAResourceIsOneLineToACall(t *testing.T) {
	var r Resource
	assert.LessOrEqual(t, unsafe.Offsetof(r.kinds)+4, uintptr(64))
	for i := range kept {
		kept[i] = newResource(fmt.Sprintf("layout-resource-%d", i)) // on the heap, as resources are
		first := uintptr(unsafe.Pointer(kept[i]))
		assert.Equal(t, first/64, (first+unsafe.Offsetof(r.kinds)+3)/64)
	}
}

var kept [8]*Resource

func TestAResourceAndItsNodesAreOneAllocation(t *testing.T) {
	// Over 512 bytes, so its slot starts with an 8-byte header; with it,
	// a slot of the 576-byte size class.
	size := unsafe.Sizeof(resourceMemory{})
	assert.Greater(t, size, uintptr(512))
	assert.LessOrEqual(t, size+8, uintptr(576))
	for i := range 8 {
		r := newResource(fmt.Sprintf("layout-one-allocation-%d", i))
		n := r.newDefaultNode()
		start := uintptr(unsafe.Pointer(r))
		within := func(p unsafe.Pointer, size uintptr) bool {
			return uintptr(p) >= start && uintptr(p)+size <= start+unsafe.Sizeof(resourceMemory{})
		}
		assert.True(t, within(unsafe.Pointer(n), unsafe.Sizeof(*n)), "the first DefaultNode")
		assert.True(t, within(unsafe.Pointer(n.Node), unsafe.Sizeof(*n.Node)), "its statistics")
		assert.True(t, within(unsafe.Pointer(r.cluster), unsafe.Sizeof(*r.cluster)), "the ClusterNode")
		assert.True(t, within(unsafe.Pointer(r.clusterStat), unsafe.Sizeof(*r.clusterStat)), "its statistics")
		// The ClusterNode's statistics' last word, the window's pointer,
		// starts a line, the window after it, as NewNode places them.
		second := uintptr(unsafe.Pointer(r.clusterStat)) + unsafe.Sizeof(*r.clusterStat) - 8
		assert.Zero(t, second%64, "the ClusterNode's window pointer starts a line")
	}
}
