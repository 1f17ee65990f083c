package ruleutil

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sync/atomic"
)

// Regex rules name their resources with a pattern from a rule document,
// which anyone who can edit the document writes. Each pattern is:
//
//   - at most MaxRegexLen bytes;
//   - parsed alone (regexp/syntax), so that it must be a whole expression:
//     `getOrder)|(.*` does not parse, where wrapped in ^(?:...)$ as text it
//     would have closed the group early and matched every resource;
//   - anchored on the parsed tree (begin, pattern, end), so that the whole
//     name must match, as Java's Pattern.matcher(name).matches();
//   - compiled to at most MaxRegexInsts instructions;
//   - and, within one rule set (Regexes), compiled once, identical patterns
//     shared, all of them together at most MaxRegexSetInsts instructions,
//     so that the cost of loading a document is bounded whatever it holds.
const (
	MaxRegexLen      = 4096
	MaxRegexInsts    = 5_000
	MaxRegexSetInsts = 100_000
)

var regexCompilations atomic.Int64

// RegexCompilations is how many patterns were compiled since the process
// started: tests use it to check that a load compiles each pattern once.
func RegexCompilations() int64 { return regexCompilations.Load() }

// CompileResourceRegex compiles a regex rule's resource with Java's
// Pattern.matcher(name).matches() semantics: the whole name must match.
// The pattern is checked and capped as described above.
func CompileResourceRegex(pattern string) (*regexp.Regexp, error) {
	re, _, err := compileResourceRegex(pattern)
	return re, err
}

func compileResourceRegex(pattern string) (*regexp.Regexp, *syntax.Prog, error) {
	if len(pattern) > MaxRegexLen {
		return nil, nil, fmt.Errorf("pattern is %d bytes, over the %d-byte cap", len(pattern), MaxRegexLen)
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, nil, err
	}
	anchored := &syntax.Regexp{Op: syntax.OpConcat, Flags: syntax.Perl, Sub: []*syntax.Regexp{
		{Op: syntax.OpBeginText}, tree, {Op: syntax.OpEndText},
	}}
	prog, err := syntax.Compile(anchored.Simplify())
	if err != nil {
		return nil, nil, err
	}
	if n := len(prog.Inst); n > MaxRegexInsts {
		return nil, nil, fmt.Errorf("pattern compiles to %d instructions, over the cap of %d", n, MaxRegexInsts)
	}
	regexCompilations.Add(1)
	re, err := regexp.Compile(anchored.String())
	if err != nil {
		return nil, nil, err
	}
	return re, prog, nil
}

// Regexes compiles the regex resources of one rule set: each distinct
// pattern once, shared between validation and the compiled rules, within
// MaxRegexSetInsts instructions in all. The zero value is ready; a nil
// *Regexes compiles each pattern on its own, without sharing or budget.
type Regexes struct {
	byPattern map[string]*regexp.Regexp
	insts     int
	// The distinct patterns in the order first compiled, their programs
	// and places, for Build.
	order []string
	progs []*syntax.Prog
	index map[string]int
	set   *PatternSet
}

// Compile returns pattern compiled (see CompileResourceRegex); a pattern
// compiled before by this Regexes is returned again, not compiled anew.
func (x *Regexes) Compile(pattern string) (*regexp.Regexp, error) {
	if x == nil {
		return CompileResourceRegex(pattern)
	}
	if re, ok := x.byPattern[pattern]; ok {
		return re, nil
	}
	if x.insts >= MaxRegexSetInsts {
		return nil, fmt.Errorf("the rule set's patterns are over the cap of %d instructions in all; not compiled", MaxRegexSetInsts)
	}
	re, prog, err := compileResourceRegex(pattern)
	if err != nil {
		return nil, err
	}
	n := len(prog.Inst)
	if x.insts+n > MaxRegexSetInsts {
		x.insts = MaxRegexSetInsts
		return nil, fmt.Errorf("the rule set's patterns are over the cap of %d instructions in all; not compiled", MaxRegexSetInsts)
	}
	x.insts += n
	if x.byPattern == nil {
		x.byPattern = make(map[string]*regexp.Regexp)
	}
	x.byPattern[pattern] = re
	if x.index == nil {
		x.index = make(map[string]int)
	}
	x.index[pattern] = len(x.order)
	x.order = append(x.order, pattern)
	x.progs = append(x.progs, prog)
	return re, nil
}
