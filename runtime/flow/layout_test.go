package flow

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// A call checking one QPS gate reads the checker's slice and the rule's
// fields up to its app: one cache line of a checker that starts one.
func TestACheckerIsOneLineToACall(t *testing.T) {
	var ck checker
	var br boundRule
	assert.LessOrEqual(t, unsafe.Offsetof(ck.inline)+unsafe.Offsetof(br.app)+1, uintptr(64))
	for i := range checkers {
		checkers[i] = newChecker() // kept, so on the heap as Bind's are
		assert.Zero(t, uintptr(unsafe.Pointer(checkers[i]))%64)
	}
}

var checkers [8]*checker
