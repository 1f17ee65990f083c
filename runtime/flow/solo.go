package flow

import (
	"sync/atomic"
	"unsafe"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// gateBlock is a QPS gate and its window in one allocation of 128 bytes,
// a size class whose objects start on a cache line. Its first line is
// what the window's TryAdd reads, the rule's limit among it
// (stat.GateMemory), so that a resource whose one flow rule is such a
// gate checks a call on one line: the block is then its checker too
// (soloGate).
type gateBlock struct {
	mem  stat.GateMemory
	gate gate
	// bound is the checker of the resource's latest bind that made the
	// block its checker: what a refusal and an exit run. It holds this
	// one rule, on this gate.
	bound atomic.Pointer[checker]
	_     [128 - unsafe.Sizeof(stat.GateMemory{}) - unsafe.Sizeof(gate{}) - 8]byte
}

// blockOf is the gateBlock of a QPS gate (newGate puts every one in a
// block).
func blockOf(g *gate) *gateBlock {
	return (*gateBlock)(unsafe.Add(unsafe.Pointer(g), -int(unsafe.Offsetof(gateBlock{}.gate))))
}

// soloGate is the checker of a resource whose one flow rule is a local
// QPS gate on every caller, enforcing: the common rule. It is the gate's
// block, so a call's check reads the window's line and no checker: one
// cache line fewer per call, which counts when thousands of resources
// take turns. It decides what the bound checker decides, which it runs
// past the common case.
type soloGate gateBlock

// solo returns the gate's block as the checker of ck, when ck is such a
// one-rule checker.
func solo(ck *checker) runtime.Checker {
	if len(ck.rules) != 1 {
		return nil
	}
	br := &ck.rules[0]
	if !br.direct || br.dry || br.grade != GradeQPS || br.single == nil || br.passes.Limit() != br.limit {
		return nil
	}
	gb := blockOf(br.single)
	if gb.mem.Window() != br.passes {
		return nil
	}
	gb.bound.Store(ck)
	return (*soloGate)(gb)
}

// Check is checker.Check for one direct gate: TryAdd on the window, then,
// when it refuses, what the bound checker does with a refusal.
func (s *soloGate) Check(c *runtime.Call) *runtime.BlockError {
	w := s.mem.Window()
	if w.TryAdd(c.StartMillis(), stat.Pass, c.BatchCount(), w.Limit()) {
		return nil
	}
	// bound is an enforcing one-rule checker (solo binds no other); a
	// reload that made the rule dry-run binds a checker instead.
	return s.bound.Load().refused(c, 0, c.BatchCount())
}

// Exit runs for a call a later slot refused (SkipsExit): the bound
// checker gives its pass back.
func (s *soloGate) Exit(c *runtime.Call) { s.bound.Load().Exit(c) }

// SkipsExit: an admitted call takes nothing from a QPS gate.
func (s *soloGate) SkipsExit() bool { return true }
