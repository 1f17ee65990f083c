package main

import (
	"strings"
	"sync"

	"github.com/sentinelgen/sentinelgen/runtime/degrade"
)

// breakerStates remembers each breaker's recent transitions, so that the
// demo's table gives the states a breaker was in during the second its
// figures are for, not the state when the line is printed.
type breakerStates struct {
	mu      sync.Mutex
	changes map[string][]degrade.StateChange
}

// keptChanges bounds what is remembered per resource: the table reads the
// last second only.
const keptChanges = 32

func newBreakerStates() *breakerStates {
	return &breakerStates{changes: map[string][]degrade.StateChange{}}
}

// observe is a degrade.StateChangeObserver.
func (b *breakerStates) observe(c degrade.StateChange) {
	b.mu.Lock()
	defer b.mu.Unlock()
	cs := append(b.changes[c.Resource], c)
	if len(cs) > keptChanges {
		cs = cs[len(cs)-keptChanges:]
	}
	b.changes[c.Resource] = cs
}

// during is the states resource's breaker was in within [from, to), in
// order: "CLOSED", or "CLOSED → OPEN" when it opened then. It is "" for a
// resource without a breaker.
func (b *breakerStates) during(resource string, from, to int64) string {
	b.mu.Lock()
	cs := b.changes[resource]
	b.mu.Unlock()
	// The state at from: where the last change before it led, else where
	// the first change after it started.
	at := ""
	for _, c := range cs {
		if c.Millis < from {
			at = c.To.String()
		} else if at == "" {
			at = c.From.String()
		}
	}
	states := []string{at}
	for _, c := range cs {
		if c.Millis >= from && c.Millis < to {
			states = append(states, c.To.String())
		}
	}
	if at != "" {
		return strings.Join(states, " → ")
	}
	for _, br := range degrade.Breakers() { // never changed: its state now is its state then
		if br.Resource == resource {
			return br.State.String()
		}
	}
	return ""
}
