package degrade

import (
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// StateChange is one transition of one breaker, as observers see it.
type StateChange struct {
	// Resource is the resource the breaker guards (for a regex or default
	// rule, the matched resource, not the rule's pattern).
	Resource string
	// Rule is the breaker's rule. Do not modify it.
	Rule     *Rule
	From, To State
	// Value is what tripped the breaker when To is Open: the slow or error
	// ratio, or the error count, on CLOSED -> OPEN; 1.0 on HALF_OPEN ->
	// OPEN, as Java reports it. It is 0 for the other transitions, where
	// Java passes null.
	Value float64
	// Millis is when the transition happened, in Unix milliseconds of the
	// runtime's clock.
	Millis int64
}

// StateChangeObserver is told of every breaker transition (Java's
// CircuitBreakerStateChangeObserver). It runs synchronously on the
// goroutine whose call caused the transition, so it must be quick; a panic
// in it is recovered and logged.
type StateChangeObserver func(StateChange)

type namedObserver struct {
	name string
	fn   StateChangeObserver
}

var (
	observerMu sync.Mutex
	observers  atomic.Pointer[[]namedObserver]
)

// RegisterStateChangeObserver adds an observer under name, replacing one
// registered under the same name (Java's
// EventObserverRegistry.addStateChangeObserver). A nil fn removes it.
func RegisterStateChangeObserver(name string, fn StateChangeObserver) {
	observerMu.Lock()
	defer observerMu.Unlock()
	var next []namedObserver
	replaced := false
	if old := observers.Load(); old != nil {
		for _, o := range *old {
			if o.name == name {
				replaced = true
				if fn == nil {
					continue
				}
				o.fn = fn
			}
			next = append(next, o)
		}
	}
	if !replaced && fn != nil {
		next = append(next, namedObserver{name, fn})
	}
	observers.Store(&next)
}

// UnregisterStateChangeObserver removes the observer registered under name.
func UnregisterStateChangeObserver(name string) { RegisterStateChangeObserver(name, nil) }

func notify(ev StateChange) {
	obs := observers.Load()
	if obs == nil {
		return
	}
	for _, o := range *obs {
		callObserver(o, ev)
	}
}

func callObserver(o namedObserver, ev StateChange) {
	defer func() {
		if p := recover(); p != nil {
			runtime.Logger().Error("sentinel: circuit breaker observer panicked",
				slog.String("observer", o.name), slog.String("resource", safetext.Name(ev.Resource)), slog.Any("panic", p))
		}
	}()
	o.fn(ev)
}
