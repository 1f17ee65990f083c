package paramflow

// ValuesHeld is the number of argument values rule i of the rules in force
// holds state for on resource (exact rules ignore resource).
func ValuesHeld(i int, resource string) int {
	s := inForce.Load()
	r := &s.rules[i]
	st := s.states[identity(r)]
	return st.forResource(resource, r.Regex).len()
}

// CapacityFor exposes the per-rule bound.
var CapacityFor = capacityFor
