package ruleutil

import (
	"errors"
	"fmt"
)

// The patterns of one rule set (one rule kind's regex rules) are matched
// together, by at most MaxRegexAutomata automata (see automaton), built
// when the set loads: as many patterns share one as fit in
// MaxRegexStates states, and all of them together hold at most
// MaxRegexCells table entries (2 bytes each). Binding a name then reads
// it at most MaxRegexAutomata times, one table lookup per rune, whatever
// the patterns: under a hundred microseconds for a 4 KiB name. Patterns
// see the whole name and keep Go's regexp syntax and meaning (RE2: no
// backreferences or lookaround, as compiled by CompileResourceRegex); a set
// whose automata would not fit these caps, or take more than
// regexBuildWork steps to build (classifying runes included: see
// classify), is refused, naming the pattern where it stopped.
const (
	MaxRegexAutomata = 8
	MaxRegexStates   = 6_000
	MaxRegexCells    = 1 << 19
	regexBuildWork   = 20_000_000
	regexAttemptWork = 5_000_000
)

// Pattern is a pattern's place in its rule set (Regexes.Pattern).
type Pattern int32

// PatternError is a rule set refused for its patterns' automata: Pattern
// is the pattern it stopped at, for the error to name its rule.
type PatternError struct {
	Pattern string
	Err     error
}

func (e *PatternError) Error() string { return e.Err.Error() }

// PatternSet matches names against every pattern of a rule set. The nil
// set matches nothing. It is immutable, safe for concurrent use.
type PatternSet struct {
	autos []*automaton
	base  []int32 // the set's index of each automaton's first pattern
	n     int
}

// Build builds the set's automata from the patterns compiled so far; Set
// then returns them. It splits the patterns in halves until each part's
// automaton fits, so patterns that share an automaton cheaply do.
func (x *Regexes) Build() error {
	set := &PatternSet{n: len(x.order)}
	work := int64(regexBuildWork)
	cells := MaxRegexCells
	var build func(lo, hi int) error
	build = func(lo, hi int) error {
		if len(set.autos) == MaxRegexAutomata {
			return &PatternError{x.order[lo], fmt.Errorf("the rule set's patterns need more than %d automata to match in bounded time; not compiled (fewer or simpler patterns, such as literal prefixes, share one)", MaxRegexAutomata)}
		}
		// One attempt spends at most regexAttemptWork: a union that would
		// cost more is split, as one that needs too many states is.
		attempt := min(work, regexAttemptWork)
		left := attempt
		a, err := buildAutomaton(x.patterns[lo:hi], &x.sets, MaxRegexStates, cells, &left)
		work -= attempt - left
		switch {
		case err == nil:
			set.autos = append(set.autos, a)
			set.base = append(set.base, int32(lo))
			cells -= len(a.next)
			return nil
		case work <= 0:
			return &PatternError{x.order[lo], fmt.Errorf("the rule set's patterns take over %d steps to compile to automata; not compiled", regexBuildWork)}
		case hi-lo == 1 && errors.Is(err, errOverBudget):
			return &PatternError{x.order[lo], fmt.Errorf("pattern takes over %d steps to compile to an automaton; not compiled", regexAttemptWork)}
		case hi-lo == 1:
			return &PatternError{x.order[lo], fmt.Errorf("pattern needs an automaton of more than %d states, or more than the rule set's %d table entries left, to match in bounded time (a repeat after .*, as .*a.{20}, multiplies states)", MaxRegexStates, cells)}
		}
		mid := (lo + hi) / 2
		if err := build(lo, mid); err != nil {
			return err
		}
		return build(mid, hi)
	}
	if set.n > 0 {
		if err := build(0, set.n); err != nil {
			return err
		}
	}
	x.set = set
	return nil
}

// Set is the set Build built, nil before.
func (x *Regexes) Set() *PatternSet {
	if x == nil {
		return nil
	}
	return x.set
}

// Pattern is pattern's place in the set; -1 when it was not compiled.
func (x *Regexes) Pattern(pattern string) Pattern {
	if x == nil {
		return -1
	}
	if i, ok := x.index[pattern]; ok {
		return Pattern(i)
	}
	return -1
}

// Matches is the patterns a name matches.
type Matches struct{ bits []uint64 }

// Has reports whether pattern p matched.
func (m Matches) Has(p Pattern) bool {
	return p >= 0 && int(p)/64 < len(m.bits) && m.bits[p/64]&(1<<(p%64)) != 0
}

// Match returns the patterns that the whole of name matches.
func (s *PatternSet) Match(name string) Matches {
	if s == nil || s.n == 0 {
		return Matches{}
	}
	m := Matches{bits: make([]uint64, (s.n+63)/64)}
	for i, a := range s.autos {
		for _, p := range a.run(name) {
			g := s.base[i] + p
			m.bits[g/64] |= 1 << (g % 64)
		}
	}
	return m
}

// Any reports whether some pattern matches the whole of name.
func (s *PatternSet) Any(name string) bool {
	if s == nil {
		return false
	}
	for _, a := range s.autos {
		if len(a.run(name)) > 0 {
			return true
		}
	}
	return false
}

// Automata is how many automata the set has, for tests.
func (s *PatternSet) Automata() int {
	if s == nil {
		return 0
	}
	return len(s.autos)
}

// BuildFor is Build for a rule set of n rules, where pattern(i) is rule
// i's pattern when it is a regex rule: when the set is refused, index is
// the first rule with the pattern Build stopped at, for its error.
func (x *Regexes) BuildFor(n int, pattern func(i int) (string, bool)) (index int, reason string, ok bool) {
	err := x.Build()
	if err == nil {
		return 0, "", true
	}
	pe := err.(*PatternError)
	for i := range n {
		if p, isRegex := pattern(i); isRegex && p == pe.Pattern {
			return i, pe.Error(), false
		}
	}
	return 0, pe.Error(), false
}
