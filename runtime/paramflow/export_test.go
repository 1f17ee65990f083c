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

// KeyBytesHeld is the bytes of the string values rule i holds state for on
// resource.
func KeyBytesHeld(i int, resource string) int {
	s := inForce.Load()
	r := &s.rules[i]
	c := s.states[identity(r)].forResource(resource, r.Regex)
	n := 0
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.RLock()
		for k := range sh.strs {
			n += len(k)
		}
		sh.mu.RUnlock()
	}
	return n
}
