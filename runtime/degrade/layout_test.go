package degrade

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// A call reads one cache line of its checker and one of each breaker: the
// fields it reads come first, and the sizes are size classes whose
// objects start on a line.
func TestCheckerAndBreakerAreOneLineToACall(t *testing.T) {
	var k checker
	assert.Equal(t, uintptr(128), unsafe.Sizeof(k))
	assert.LessOrEqual(t, unsafe.Offsetof(k.dry)+8, uintptr(64), "breakers, inline, exitDry and dry's pointer")
	var b breaker
	assert.Equal(t, uintptr(192), unsafe.Sizeof(b))
	assert.LessOrEqual(t, unsafe.Offsetof(b.stat)+unsafe.Sizeof(b.stat), uintptr(64), "state, grade, maxRT and the window")
}
