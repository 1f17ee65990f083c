package degrade

import "strconv"

// State is a circuit breaker's state (Java's CircuitBreaker.State).
type State int32

const (
	// Closed lets every call through and counts their outcomes.
	Closed State = iota
	// Open refuses every call until the rule's timeWindow has passed.
	Open
	// HalfOpen has let one probe through and refuses the rest until the
	// probe completes: a good probe closes the breaker, a bad one opens it
	// again.
	HalfOpen
)

func (s State) String() string {
	switch s {
	case Closed:
		return "CLOSED"
	case Open:
		return "OPEN"
	case HalfOpen:
		return "HALF_OPEN"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText writes Java's name (CLOSED, OPEN, HALF_OPEN).
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
