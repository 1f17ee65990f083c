package flow

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// A call checking one QPS gate reads the checker's slice and the rule's
// fields up to its app: one cache line of a 192-byte checker, a size class
// whose objects start on a line.
func TestACheckerIsOneLineToACall(t *testing.T) {
	var ck checker
	assert.Equal(t, uintptr(192), unsafe.Sizeof(ck))
	var br boundRule
	assert.LessOrEqual(t, unsafe.Offsetof(ck.inline)+unsafe.Offsetof(br.app)+1, uintptr(64))
}
