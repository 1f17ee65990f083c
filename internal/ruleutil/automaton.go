package ruleutil

import (
	"errors"
	"hash/maphash"
	"regexp/syntax"
	"slices"
	"sort"
	"unicode/utf8"
)

// An automaton is a deterministic automaton (DFA) for several anchored
// patterns at once, built whole when the rules load: matching a name then
// reads each of its runes once, one table lookup per rune, whatever the
// patterns, and stops as soon as no pattern can match any more. Go's
// regexp simulates the NFA, whose cost per byte grows with the pattern
// (a name of 2 KiB against forty large patterns took a second).
//
// Runes fall in classes that every instruction of the patterns treats
// alike (and that agree on being a word character or a newline, which
// \b, ^ and $ under (?m) look at); the table has a row per state and a
// column per class. A state is the set of NFA instructions the patterns
// may be at, with the kind of rune read last when some empty-width
// assertion looks at it.
type automaton struct {
	classes int
	ascii   [utf8.RuneSelf]uint16
	// bounds[i] is the first rune of interval i; class[i] its class.
	bounds []rune
	class  []uint16
	next   []uint16  // state*classes + class: the next state; 0 is dead
	accept [][]int32 // per state: the patterns matched when the name ends there
	start  uint16
}

// run returns the patterns (indices within the automaton) the whole of
// name matches.
func (a *automaton) run(name string) []int32 {
	next, nc, ascii := a.next, a.classes, &a.ascii
	s := int(a.start)
	for i := 0; i < len(name); {
		var c uint16
		if b := name[i]; b < utf8.RuneSelf {
			c = ascii[b]
			i++
		} else {
			r, w := utf8.DecodeRuneInString(name[i:])
			c = a.classOf(r)
			i += w
		}
		s = int(next[s*nc+int(c)])
		if s == 0 {
			return nil
		}
	}
	return a.accept[s]
}

func (a *automaton) classOf(r rune) uint16 {
	i := sort.Search(len(a.bounds), func(i int) bool { return a.bounds[i] > r }) - 1
	return a.class[i]
}

// Why an automaton was not built: over its states or table entries, or
// over the work it was given.
var (
	errTooLarge   = errors.New("too large")
	errOverBudget = errors.New("over the work budget")
)

// The kinds of rune read last, for the empty-width assertions.
const (
	prevStart = iota
	prevOther
	prevWord
	prevNewline
)

var prevRune = [...]rune{prevStart: -1, prevOther: ' ', prevWord: 'a', prevNewline: '\n'}

// automatonBuilder builds one automaton from the programs of its patterns.
type automatonBuilder struct {
	insts   []syntax.Inst // the patterns' programs, end to end
	pattern []int32       // for InstMatch: the pattern's index; else -1
	context bool          // some assertion looks at the runes around it

	reps      []rune     // a rune of each class
	classKind []uint8    // the kind of each class's runes (prevWord, ...)
	reads     []int32    // for each instruction, the rune set it reads (-1: none)
	classesOf [][]uint16 // for each rune instruction, the classes it reads

	maxStates int
	maxCells  int
	work      *int64 // the budget left; each instruction visited costs one

	marks   []uint32 // visited while resolving, stamped with mark
	mark    uint32
	nextMk  []uint32 // visited while closing a next state, stamped with nextGen
	nextGen uint32
	buckets [][]uint32 // per class, the instructions a rune of it leads to

	seed  uint64              // random per build: sets cannot be made to collide
	index map[uint64][]uint16 // by hash of kind and set
	sets  [][]uint32
	kinds []uint8
}

// buildAutomaton builds the automaton of pats, whose programs are
// anchored and read the sets of sets; pattern i of the automaton is
// pats[i].
func buildAutomaton(pats []compiledPattern, sets *runeSets, maxStates, maxCells int, work *int64) (*automaton, error) {
	b := &automatonBuilder{maxStates: maxStates, maxCells: maxCells, work: work, index: map[uint64][]uint16{}, seed: maphash.Comparable(maphash.MakeSeed(), 0)}
	var starts []uint32
	for i, cp := range pats {
		p := cp.prog
		off := uint32(len(b.insts))
		b.reads = append(b.reads, cp.sets...)
		for _, in := range p.Inst {
			switch in.Op {
			case syntax.InstMatch, syntax.InstFail:
			case syntax.InstAlt, syntax.InstAltMatch:
				in.Out += off
				in.Arg += off
			default:
				in.Out += off
			}
			if in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&^(syntax.EmptyBeginText|syntax.EmptyEndText) != 0 {
				b.context = true
			}
			b.insts = append(b.insts, in)
			m := int32(-1)
			if in.Op == syntax.InstMatch {
				m = int32(i)
			}
			b.pattern = append(b.pattern, m)
		}
		starts = append(starts, off+uint32(p.Start))
	}
	b.marks = make([]uint32, len(b.insts))
	b.nextMk = make([]uint32, len(b.insts))
	a := &automaton{}
	if err := b.classify(a, pats, sets); err != nil {
		return nil, err
	}
	// State 0 is dead: no instruction left, nothing can match.
	b.sets = append(b.sets, nil)
	b.kinds = append(b.kinds, prevOther)
	a.accept = append(a.accept, nil)
	var first []uint32
	b.nextGen++
	for _, pc := range starts {
		first = b.addNext(first, pc)
	}
	start, err := b.intern(first, prevStart)
	if err != nil {
		return nil, err
	}
	a.start = start
	b.buckets = make([][]uint32, a.classes)
	for s := 1; s < len(b.sets); s++ { // b.sets grows as states are found
		row, acc, err := b.state(b.sets[s], b.kinds[s])
		if err != nil {
			return nil, err
		}
		a.next = append(a.next, row...)
		a.accept = append(a.accept, acc)
		if *b.work < 0 {
			return nil, errOverBudget
		}
	}
	// Row 0 (dead) leads to itself; rows were appended from state 1 on.
	a.next = append(make([]uint16, a.classes), a.next...)
	return a, nil
}

func (b *automatonBuilder) kindOf(r rune) uint8 {
	switch {
	case !b.context:
		return prevOther
	case r == '\n':
		return prevNewline
	case syntax.IsWordChar(r):
		return prevWord
	}
	return prevOther
}

// intern returns the state of set (sorted in place) after a rune of kind.
func (b *automatonBuilder) intern(set []uint32, kind uint8) (uint16, error) {
	if len(set) == 0 {
		return 0, nil
	}
	slices.Sort(set)
	sum := b.seed ^ uint64(kind)
	for _, pc := range set {
		sum = (sum ^ uint64(pc)) * 0x100000001b3
	}
	sum ^= sum >> 29
	*b.work -= int64(len(set))
	for _, id := range b.index[sum] {
		*b.work -= int64(len(set))
		if b.kinds[id] == kind && slices.Equal(b.sets[id], set) {
			return id, nil
		}
	}
	if len(b.sets) > min(b.maxStates, 1<<16-1) || (len(b.sets)+1)*len(b.reps) > b.maxCells {
		return 0, errTooLarge
	}
	id := uint16(len(b.sets))
	b.index[sum] = append(b.index[sum], id)
	b.sets = append(b.sets, set)
	b.kinds = append(b.kinds, kind)
	return id, nil
}

// addNext adds pc to a next state's set, following the instructions that
// consume nothing and assert nothing (alternations, captures, no-ops):
// a state holds the instructions that read a rune, assert or match.
func (b *automatonBuilder) addNext(set []uint32, pc uint32) []uint32 {
	for {
		if b.nextMk[pc] == b.nextGen {
			return set
		}
		b.nextMk[pc] = b.nextGen
		*b.work--
		in := &b.insts[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			set = b.addNext(set, in.Out)
			pc = in.Arg
		case syntax.InstNop, syntax.InstCapture:
			pc = in.Out
		case syntax.InstFail:
			return set
		default:
			return append(set, pc)
		}
	}
}

// state computes the row of the state of set, the rune before being of
// kind prev, and the patterns that match when the name ends there.
func (b *automatonBuilder) state(set []uint32, prev uint8) (row []uint16, accept []int32, err error) {
	row = make([]uint16, len(b.reps))
	// The assertions see the kind of the next rune: resolve the state
	// once per kind of class there is, then read every class of it.
	for kind := prevOther; kind <= prevNewline; kind++ {
		if !slices.Contains(b.classKind, uint8(kind)) {
			continue
		}
		readers, _ := b.resolve(set, prev, prevRune[kind])
		for _, pc := range readers {
			*b.work -= int64(len(b.classesOf[pc]))
			for _, c := range b.classesOf[pc] {
				if b.classKind[c] == uint8(kind) {
					b.buckets[c] = append(b.buckets[c], b.insts[pc].Out)
				}
			}
		}
	}
	*b.work -= int64(len(b.buckets)) // the row, and the buckets read
	for c, outs := range b.buckets {
		if len(outs) == 0 {
			continue
		}
		b.nextGen++
		var next []uint32
		for _, pc := range outs {
			next = b.addNext(next, pc)
		}
		b.buckets[c] = outs[:0]
		if row[c], err = b.intern(next, b.classKind[c]); err != nil {
			return nil, nil, err
		}
	}
	_, accept = b.resolve(set, prev, -1)
	return row, accept, nil
}

// resolve follows the assertions of set that hold between a rune of kind
// prev and next (-1: the end of the name): it returns the instructions
// that read a rune and, at the end, the patterns that match.
func (b *automatonBuilder) resolve(set []uint32, prev uint8, next rune) (readers []uint32, accept []int32) {
	flags := syntax.EmptyOpContext(prevRune[prev], next)
	b.mark++
	var visit func(pc uint32)
	visit = func(pc uint32) {
		for {
			if b.marks[pc] == b.mark {
				return
			}
			b.marks[pc] = b.mark
			*b.work--
			in := &b.insts[pc]
			switch in.Op {
			case syntax.InstAlt, syntax.InstAltMatch:
				visit(in.Out)
				pc = in.Arg
			case syntax.InstNop, syntax.InstCapture:
				pc = in.Out
			case syntax.InstEmptyWidth:
				if syntax.EmptyOp(in.Arg)&^flags != 0 {
					return
				}
				pc = in.Out
			case syntax.InstMatch:
				if next < 0 {
					accept = append(accept, b.pattern[pc])
				}
				return
			case syntax.InstFail:
				return
			default:
				if next >= 0 {
					readers = append(readers, pc)
				}
				return
			}
		}
	}
	for _, pc := range set {
		visit(pc)
	}
	if len(accept) > 1 {
		slices.Sort(accept)
		accept = slices.Compact(accept)
	}
	return readers, accept
}
