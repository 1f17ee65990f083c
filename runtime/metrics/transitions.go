package metrics

import (
	"sync"

	"github.com/sentinelgen/sentinelgen/runtime/degrade"
)

// Breaker transitions happen between scrapes (a breaker may open and close
// again before the next one), so the state gauge alone can miss them. One
// degrade observer, registered by the first NewCollector, counts them for
// every collector of the process: transitions are rare, and counting them
// costs the call that causes one a map update under a lock, and other calls
// nothing.

type transitionKey struct {
	resource string
	to       degrade.State
}

var transitions struct {
	once   sync.Once
	mu     sync.Mutex
	counts map[transitionKey]int64
}

func watchTransitions() {
	transitions.once.Do(func() {
		transitions.counts = make(map[transitionKey]int64)
		degrade.RegisterStateChangeObserver("sentinelgen/runtime/metrics", func(ev degrade.StateChange) {
			transitions.mu.Lock()
			transitions.counts[transitionKey{ev.Resource, ev.To}]++
			transitions.mu.Unlock()
		})
	})
}

func transitionCounts() map[transitionKey]int64 {
	transitions.mu.Lock()
	defer transitions.mu.Unlock()
	out := make(map[transitionKey]int64, len(transitions.counts))
	for k, v := range transitions.counts {
		out[k] = v
	}
	return out
}
