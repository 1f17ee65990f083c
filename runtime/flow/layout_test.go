//go:build amd64 || arm64

// The figures here are those of 64-bit machines with 64-byte cache lines.

package flow

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// A resource's one local QPS gate is its own checker (soloGate): a call
// reads the gate block's first line, which holds the window's ring, the
// fields TryAdd reads and the rule's limit, and no checker.
func TestAOneGateResourceChecksOnOneLine(t *testing.T) {
	var gb gateBlock
	assert.Equal(t, uintptr(128), unsafe.Sizeof(gb), "a size class whose objects start on a line")
	assert.Zero(t, unsafe.Offsetof(gb.mem))
	for i := range gateBlocks {
		g := newGate(GradeQPS, nil, 0, 10)
		gateBlocks[i] = blockOf(g) // kept, so on the heap
		assert.Same(t, g, &gateBlocks[i].gate)
		assert.Same(t, g.passes, gateBlocks[i].mem.Window())
		assert.Zero(t, uintptr(unsafe.Pointer(gateBlocks[i]))%64)
		assert.EqualValues(t, 10, g.passes.Limit())
	}

	direct := boundRule{kind: kindGate, grade: GradeQPS, direct: true, limit: 10}
	direct.single = newGate(GradeQPS, nil, 0, 10)
	direct.passes = direct.single.passes
	one := func(br boundRule) *checker {
		ck := newChecker()
		ck.rules = append(ck.inline[:0], br)
		ck.hasGates = true
		return ck
	}
	ck := one(direct)
	s, ok := solo(ck).(*soloGate)
	require.True(t, ok)
	assert.Same(t, blockOf(direct.single), (*gateBlock)(s))
	assert.Same(t, ck, s.bound.Load(), "refusals and exits run the bound checker")
	assert.True(t, s.SkipsExit())

	dry := direct
	dry.dry = true
	other := direct
	other.limit = 11 // not the window's
	for name, br := range map[string]boundRule{"dry-run": dry, "another limit": other} {
		assert.Nil(t, solo(one(br)), name)
	}
	two := one(direct)
	two.rules = append(two.rules, direct)
	assert.Nil(t, solo(two), "two rules")
}

var gateBlocks [8]*gateBlock
