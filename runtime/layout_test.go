package runtime

import (
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
