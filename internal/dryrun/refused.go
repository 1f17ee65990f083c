// Package dryrun holds what the rule slots share to run dry-run rules: a
// rule that runs fully but admits every call, counting the calls it would
// have blocked (runtime.CountDryRunBlock).
//
// A Checker's Exit gives back what its Check took for the call (thread
// tokens, a QPS gate's pass, a breaker's probe). A dry-run rule that
// "refused" a call took nothing, yet the call goes on and exits; a dry-run
// rule that admitted it took what an enforcing rule takes. Refused tells
// the two apart at exit: the slot adds the calls its dry-run rule refused,
// and its Exit takes them out again instead of releasing.
package dryrun

import (
	"sync"
	"sync/atomic"
)

// Refused is the set of calls in flight that one dry-run rule refused (and
// admitted). The zero value is empty and ready. Calls are keyed by
// pointer: a call is the entry that holds it, never reused while in
// flight.
//
// Take on an empty set is one atomic load, so a dry-run rule that refuses
// nothing costs its admitted calls no map lookup.
type Refused[T any] struct {
	n atomic.Int64
	m sync.Map // *T -> struct{}
}

// Add records that the rule refused c.
func (r *Refused[T]) Add(c *T) {
	r.n.Add(1)
	r.m.Store(c, struct{}{})
}

// Take reports whether the rule refused c, and forgets c: a call is taken
// once, at its exit.
func (r *Refused[T]) Take(c *T) bool {
	if r.n.Load() == 0 {
		return false
	}
	if _, ok := r.m.LoadAndDelete(c); ok {
		r.n.Add(-1)
		return true
	}
	return false
}

// Has reports whether the rule refused c, without forgetting it.
func (r *Refused[T]) Has(c *T) bool {
	if r.n.Load() == 0 {
		return false
	}
	_, ok := r.m.Load(c)
	return ok
}

// Len is the number of calls refused and not yet taken.
func (r *Refused[T]) Len() int { return int(r.n.Load()) }
