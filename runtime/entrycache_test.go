//go:build !race && (amd64 || arm64)

package runtime

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// Two processors' lists of exited entries never share a cache line.
func TestEntryCachesDoNotShareLines(t *testing.T) {
	assert.Equal(t, uintptr(128), unsafe.Sizeof(entryCache{}))
	assert.LessOrEqual(t, unsafe.Offsetof(entryCache{}.items)+unsafe.Sizeof(entryCache{}.items), uintptr(64))
}
