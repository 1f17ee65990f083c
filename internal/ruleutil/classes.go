package ruleutil

import (
	"math/bits"
	"slices"
	"unicode/utf8"
)

// classify splits runes into the automaton's classes and fills a's
// lookup tables. Every set the patterns read (see runeSets) and the kinds
// of rune the assertions look at are swept once, in the order of their
// bounds: between two bounds runes belong to the same sets, and intervals
// that belong to the same sets share a class. The sweep costs about the
// sets' ranges, not the instructions reading them, and is counted in the
// build's work as the states are.
func (b *automatonBuilder) classify(a *automaton, pats []compiledPattern, sets *runeSets) error {
	local := map[int32]int{} // a set's place among members
	var members [][]rune
	for _, p := range pats {
		for _, id := range p.distinct {
			if _, ok := local[id]; !ok {
				local[id] = len(members)
				members = append(members, sets.ranges[id])
			}
		}
	}
	members = append(members, []rune{'\n', '\n'})
	if b.context {
		members = append(members, []rune{'0', '9', 'A', 'Z', '_', '_', 'a', 'z'})
	}
	events := 0
	for _, m := range members {
		events += len(m)
	}
	words := (len(members) + 63) / 64
	*b.work -= int64(events) * int64(1+bits.Len(uint(events))/4) // making and sorting them
	if *b.work < 0 {
		return errOverBudget
	}
	// An event is where a member's ranges begin or end: rune<<32 | member.
	ev := make([]uint64, 0, events)
	for j, m := range members {
		for i := 0; i+1 < len(m); i += 2 {
			ev = append(ev, uint64(m[i])<<32|uint64(j))
			if m[i+1] < utf8.MaxRune {
				ev = append(ev, uint64(m[i+1]+1)<<32|uint64(j))
			}
		}
	}
	slices.Sort(ev)

	// The members the interval being swept belongs to, and a hash of them
	// (a random number per member, xor-ed) to find the class with the
	// same members.
	in := make([]uint64, words)
	var sum uint64
	salt := make([]uint64, len(members))
	for j := range salt {
		salt[j] = mix(b.seed + uint64(j))
	}
	byHash := map[uint64][]uint16{}
	var classMembers []uint64 // class c's: classMembers[c*words:][:words]
	emit := func(r rune) error {
		*b.work -= int64(words) + 1
		c, found := uint16(0), false
		for _, id := range byHash[sum] {
			if slices.Equal(classMembers[int(id)*words:][:words], in) {
				c, found = id, true
				break
			}
		}
		if !found {
			if len(b.reps) == 1<<16-1 {
				return errTooLarge
			}
			c = uint16(len(b.reps))
			byHash[sum] = append(byHash[sum], c)
			classMembers = append(classMembers, in...)
			b.reps = append(b.reps, r)
		}
		if n := len(a.class); n > 0 && a.class[n-1] == c {
			return nil // the interval before is of the same class: one bound
		}
		a.bounds = append(a.bounds, r)
		a.class = append(a.class, c)
		return nil
	}
	start := rune(0)
	for i := 0; i < len(ev); {
		r := rune(ev[i] >> 32)
		if r != start {
			if err := emit(start); err != nil {
				return err
			}
			start = r
		}
		for ; i < len(ev) && rune(ev[i]>>32) == r; i++ {
			j := uint32(ev[i])
			in[j/64] ^= 1 << (j % 64)
			sum ^= salt[j]
		}
	}
	if err := emit(start); err != nil {
		return err
	}
	if *b.work < 0 {
		return errOverBudget
	}
	a.classes = len(b.reps)
	for r := range rune(utf8.RuneSelf) {
		a.ascii[r] = a.classOf(r)
	}
	for _, r := range b.reps {
		b.classKind = append(b.classKind, b.kindOf(r))
	}
	// The classes each member holds, shared by the instructions reading it.
	holds := make([][]uint16, len(members))
	for c := range a.classes {
		for w, set := range classMembers[c*words:][:words] {
			for ; set != 0; set &= set - 1 {
				j := w*64 + bits.TrailingZeros64(set)
				holds[j] = append(holds[j], uint16(c))
				*b.work--
			}
		}
	}
	b.classesOf = make([][]uint16, len(b.insts))
	for pc, id := range b.reads {
		if id >= 0 {
			b.classesOf[pc] = holds[local[id]]
		}
	}
	if *b.work < 0 {
		return errOverBudget
	}
	return nil
}

// mix is splitmix64's finalizer: distinct inputs, scattered outputs.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
