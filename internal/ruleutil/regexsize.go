package ruleutil

import "regexp/syntax"

// progSize is the number of instructions syntax.Compile(re.Simplify())
// makes, computed from the parsed tree without simplifying or compiling
// it: a pattern over the caps is refused for the cost of parsing it. A
// 23-byte pattern such as (abcdefghijklmno){1000} compiles to 15,000
// instructions; expanding and compiling 300 of them only to refuse them
// took seconds.
//
// It follows Simplify (counted repeats expanded, x** folded to x*) and
// Compile (a star of what may match empty is two instructions, an
// alternative that cannot match adds none), and is checked against them
// by the tests and the fuzz target.
func progSize(re *syntax.Regexp) int64 {
	return 2 + sizeOf(re).insts // InstFail first, InstMatch last
}

// fragShape is what Compile's output depends on of a simplified
// expression: its instructions, whether it may match empty, whether it
// can match nothing at all (Compile's fail fragment), and its top
// operator, which Simplify folds repeats of.
type fragShape struct {
	insts     int64
	nullable  bool
	fail      bool
	op        syntax.Op
	nonGreedy bool
}

var (
	emptyShape = fragShape{insts: 1, nullable: true, op: syntax.OpEmptyMatch}
	failShape  = fragShape{fail: true, op: syntax.OpNoMatch}
)

func sizeOf(re *syntax.Regexp) fragShape {
	switch re.Op {
	case syntax.OpNoMatch:
		return failShape
	case syntax.OpEmptyMatch:
		return emptyShape
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return fragShape{insts: 1, nullable: true, op: re.Op}
		}
		return fragShape{insts: int64(len(re.Rune)), op: re.Op}
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return fragShape{insts: 1, op: re.Op}
	case syntax.OpCapture:
		s := sizeOf(re.Sub[0])
		return fragShape{insts: s.insts + 2, nullable: s.nullable && !s.fail, fail: s.fail, op: re.Op}
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		return unaryShape(re.Op, re.Flags, sizeOf(re.Sub[0]))
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return fragShape{insts: 1, nullable: true, op: re.Op}
		}
		c := fragShape{nullable: true, op: re.Op}
		for _, sub := range re.Sub {
			c = catShape(c, sizeOf(sub), 1)
		}
		return c
	case syntax.OpAlternate:
		a := failShape
		a.op = re.Op
		for _, sub := range re.Sub {
			s := sizeOf(sub)
			a.insts += s.insts
			if s.fail {
				continue
			}
			if !a.fail {
				a.insts++ // an InstAlt joins it to those before
			}
			a.fail = false
			a.nullable = a.nullable || s.nullable
		}
		return a
	case syntax.OpRepeat:
		return repeatShape(re)
	}
	// The empty-width assertions.
	return fragShape{insts: 1, nullable: true, op: re.Op}
}

// catShape is c followed by n copies of s.
func catShape(c, s fragShape, n int64) fragShape {
	c.insts += n * s.insts
	c.fail = c.fail || s.fail
	c.nullable = c.nullable && s.nullable && !c.fail
	return c
}

// unaryShape is Simplify's simplify1 then Compile of op over s.
func unaryShape(op syntax.Op, flags syntax.Flags, s fragShape) fragShape {
	nonGreedy := flags&syntax.NonGreedy != 0
	if s.op == syntax.OpEmptyMatch || s.op == op && s.nonGreedy == nonGreedy {
		return s
	}
	u := fragShape{insts: s.insts + 1, nullable: true, op: op, nonGreedy: nonGreedy}
	switch op {
	case syntax.OpStar:
		if s.nullable {
			u.insts++ // (x+)?, not a loop that could spin on empty
		}
	case syntax.OpPlus:
		u.nullable, u.fail = s.nullable, s.fail
	}
	return u
}

// repeatShape is x{min,max}, as Simplify expands it: x{2,5} is
// xx(x(x(x)?)?)? and x{2,} is xx+.
func repeatShape(re *syntax.Regexp) fragShape {
	lo, hi := re.Min, re.Max
	if lo == 0 && hi == 0 {
		return emptyShape
	}
	s := sizeOf(re.Sub[0])
	concat := fragShape{nullable: true, op: syntax.OpConcat}
	if hi == -1 {
		switch lo {
		case 0:
			return unaryShape(syntax.OpStar, re.Flags, s)
		case 1:
			return unaryShape(syntax.OpPlus, re.Flags, s)
		}
		return catShape(catShape(concat, s, int64(lo-1)), unaryShape(syntax.OpPlus, re.Flags, s), 1)
	}
	if lo == 1 && hi == 1 {
		return s
	}
	if hi < lo {
		return failShape
	}
	var suffix fragShape
	if hi > lo {
		suffix = unaryShape(syntax.OpQuest, re.Flags, s)
		if n := int64(hi - lo - 1); n > 0 {
			// Each further (x ...)? adds x and one InstAlt.
			suffix = fragShape{insts: suffix.insts + n*(s.insts+1), nullable: true, op: syntax.OpQuest, nonGreedy: re.Flags&syntax.NonGreedy != 0}
		}
		if lo == 0 {
			return suffix
		}
	}
	prefix := catShape(concat, s, int64(lo))
	if hi > lo {
		prefix = catShape(prefix, suffix, 1)
	}
	return prefix
}

// treeRunes is the runes the parser built into re's literals and classes:
// a Unicode class such as \pL holds about 1,300, built from three bytes
// of pattern, and a class repeated with {n} is built once.
func treeRunes(re *syntax.Regexp) int {
	n := len(re.Rune)
	for _, sub := range re.Sub {
		n += treeRunes(sub)
	}
	return n
}
