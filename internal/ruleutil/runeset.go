package ruleutil

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode"
)

// runeSets holds, once for a rule set, each distinct set of runes its
// patterns' instructions read: x{990} compiles to 990 instructions that
// share one class, and a Unicode class such as \pL holds hundreds of
// ranges, so the automata classify runes by set, not by instruction.
// A set is kept exactly as Go's regexp reads it, surrogate code points
// included: two classes that differ only there are two sets, each read
// as Go reads it (a name never decodes to a surrogate, so the runes that
// tell them apart are never looked up).
type runeSets struct {
	ranges [][]rune // per set: sorted, disjoint, non-adjacent lo, hi pairs
	index  map[string]int32
	key    []byte // reused to look a set up
}

// compiledPattern is one pattern's program and the sets it reads.
type compiledPattern struct {
	prog     *syntax.Prog
	sets     []int32 // per instruction: the set it reads; -1 for none
	distinct []int32 // the sets it reads, each once
}

// add interns the sets prog's instructions read. Copies of an
// instruction share its rune slice, so each slice is read once.
func (rs *runeSets) add(prog *syntax.Prog) compiledPattern {
	type slice struct {
		first *rune
		n     int
		op    syntax.InstOp
		fold  bool
	}
	seen := map[slice]int32{}
	have := map[int32]bool{}
	p := compiledPattern{prog: prog, sets: make([]int32, len(prog.Inst))}
	for pc := range prog.Inst {
		in := &prog.Inst[pc]
		p.sets[pc] = -1
		switch in.Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
		default:
			continue
		}
		key := slice{n: len(in.Rune), op: in.Op, fold: syntax.Flags(in.Arg)&syntax.FoldCase != 0}
		if len(in.Rune) > 0 {
			key.first = &in.Rune[0]
		}
		id, ok := seen[key]
		if !ok {
			id = rs.intern(runeRanges(in))
			seen[key] = id
			if !have[id] {
				have[id] = true
				p.distinct = append(p.distinct, id)
			}
		}
		p.sets[pc] = id
	}
	return p
}

func (rs *runeSets) intern(ranges []rune) int32 {
	rs.key = rs.key[:0]
	for _, r := range ranges {
		rs.key = binary.LittleEndian.AppendUint32(rs.key, uint32(r))
	}
	if id, ok := rs.index[string(rs.key)]; ok {
		return id
	}
	if rs.index == nil {
		rs.index = make(map[string]int32)
	}
	id := int32(len(rs.ranges))
	rs.index[string(rs.key)] = id
	rs.ranges = append(rs.ranges, ranges)
	return id
}

// runeRanges is the set of runes a rune instruction matches, as
// InstMatchRune reads it: lo, hi pairs, sorted and merged. A class comes
// from the parser so; it is copied only when it is not.
func runeRanges(in *syntax.Inst) []rune {
	switch in.Op {
	case syntax.InstRuneAny:
		return []rune{0, unicode.MaxRune}
	case syntax.InstRuneAnyNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
	case syntax.InstRune1:
		return []rune{in.Rune[0], in.Rune[0]}
	}
	if len(in.Rune) == 1 {
		r0 := in.Rune[0]
		pairs := []rune{r0, r0}
		if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
			for r := unicode.SimpleFold(r0); r != r0; r = unicode.SimpleFold(r) {
				pairs = append(pairs, r, r)
			}
		}
		return mergeRanges(pairs)
	}
	if merged(in.Rune) {
		return in.Rune
	}
	return mergeRanges(slices.Clone(in.Rune))
}

// merged reports whether pairs are sorted and neither overlap nor touch.
func merged(pairs []rune) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i] > pairs[i+1] || i > 0 && pairs[i] <= pairs[i-1]+1 {
			return false
		}
	}
	return len(pairs)%2 == 0
}

// mergeRanges sorts pairs by their first rune and merges those that
// overlap or touch.
func mergeRanges(pairs []rune) []rune {
	type span struct{ lo, hi rune }
	spans := make([]span, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		spans = append(spans, span{pairs[i], pairs[i+1]})
	}
	slices.SortFunc(spans, func(a, b span) int { return int(a.lo - b.lo) })
	out := pairs[:0]
	for _, s := range spans {
		if n := len(out); n > 0 && s.lo <= out[n-1]+1 {
			out[n-1] = max(out[n-1], s.hi)
			continue
		}
		out = append(out, s.lo, s.hi)
	}
	return out
}
