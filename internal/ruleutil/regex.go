package ruleutil

import (
	"errors"
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
//   - at most MaxRegexInsts instructions, counted on the parsed tree
//     before it is compiled (see progSize);
//   - and, within one rule set (Regexes), compiled once, identical patterns
//     shared, all of them together at most MaxRegexSetInsts instructions
//     and MaxRegexSetRunes runes in their literals and classes (the
//     parser's own work: a Unicode class such as \pL holds about 1,300
//     runes; a class repeated with {n} counts once), so that the cost of
//     loading a document is bounded whatever it holds. Once a budget is
//     spent, the set's further patterns are refused without being parsed.
const (
	MaxRegexLen      = 4096
	MaxRegexInsts    = 5_000
	MaxRegexSetInsts = 100_000
	MaxRegexSetRunes = 1 << 20
)

// A RegexCapError is a pattern refused for its size or its rule set's,
// not its syntax.
type RegexCapError struct{ Reason string }

func (e *RegexCapError) Error() string { return e.Reason }

func capErrorf(format string, args ...any) error {
	return &RegexCapError{fmt.Sprintf(format, args...)}
}

// RegexReason is the reason a rule error gives for a regex resource that
// Regexes.Compile refused: invalid, or refused by a cap. The rule error
// names the resource itself.
func RegexReason(err error) string {
	var capErr *RegexCapError
	if errors.As(err, &capErr) {
		return "is refused (regex is true): " + err.Error()
	}
	return "is not a valid regular expression (regex is true): " + err.Error()
}

var regexCompilations atomic.Int64

// RegexCompilations is how many patterns were compiled since the process
// started: tests use it to check that a load compiles each pattern once,
// and none that its size refuses.
func RegexCompilations() int64 { return regexCompilations.Load() }

// CompileResourceRegex compiles a regex rule's resource with Java's
// Pattern.matcher(name).matches() semantics: the whole name must match.
// The pattern is checked and capped as described above.
func CompileResourceRegex(pattern string) (*regexp.Regexp, error) {
	if _, _, _, err := parseResourceRegex(pattern); err != nil {
		return nil, err
	}
	regexCompilations.Add(1)
	// The pattern parsed alone, so wrapped as text it keeps its meaning,
	// unless it ends inside \Q, which would take the wrapping in as
	// literal text: then \E ends the quote first. (Printing the parsed
	// tree instead spells every class out: a second for some 4 KiB ones.)
	re, err := regexp.Compile(`\A(?:` + pattern + `)\z`)
	if err != nil {
		re, err = regexp.Compile(`\A(?:` + pattern + `\E)\z`)
	}
	return re, err
}

// parseResourceRegex parses pattern alone, anchors it, and counts the
// instructions it compiles to without compiling it: a pattern over the
// cap is refused for the cost of parsing it.
func parseResourceRegex(pattern string) (anchored *syntax.Regexp, insts, runes int, err error) {
	if len(pattern) > MaxRegexLen {
		return nil, 0, 0, capErrorf("the pattern is %d bytes, over the %d-byte cap", len(pattern), MaxRegexLen)
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, 0, 0, err
	}
	if runes = treeRunes(tree); runes > MaxRegexSetRunes {
		return nil, 0, 0, capErrorf("the pattern's literals and classes hold %d runes, over the cap of %d (a Unicode class such as \\pL holds about 1,300)", runes, MaxRegexSetRunes)
	}
	anchored = &syntax.Regexp{Op: syntax.OpConcat, Flags: syntax.Perl, Sub: []*syntax.Regexp{
		{Op: syntax.OpBeginText}, tree, {Op: syntax.OpEndText},
	}}
	n := progSize(anchored)
	if n > MaxRegexInsts {
		return nil, 0, 0, capErrorf("the pattern compiles to %d instructions, over the cap of %d", n, MaxRegexInsts)
	}
	return anchored, int(n), runes, nil
}

func compileAnchored(anchored *syntax.Regexp) (*syntax.Prog, error) {
	regexCompilations.Add(1)
	return syntax.Compile(anchored.Simplify())
}

// Regexes compiles the regex resources of one rule set: each distinct
// pattern once, within MaxRegexSetInsts instructions and MaxRegexSetRunes
// runes in all, each refused before it is compiled when it would pass a
// cap. The zero value is ready.
type Regexes struct {
	insts int
	runes int
	// The distinct patterns in the order first compiled, and their
	// programs, for Build.
	order    []string
	patterns []compiledPattern
	index    map[string]int
	sets     runeSets
	set      *PatternSet
}

// Why a pattern was refused once a budget of the set is spent.
var (
	errSetInsts = capErrorf("the rule set's patterns are over the cap of %d instructions in all; not compiled", MaxRegexSetInsts)
	errSetRunes = capErrorf("the rule set's patterns hold over %d runes in their literals and classes in all (a Unicode class such as \\pL holds about 1,300; a class repeated with {n} counts once); not compiled", MaxRegexSetRunes)
)

// Compile compiles pattern into the set (see CompileResourceRegex for
// what is refused); a pattern compiled before is not compiled anew.
func (x *Regexes) Compile(pattern string) error {
	if _, ok := x.index[pattern]; ok {
		return nil
	}
	switch {
	case x.insts >= MaxRegexSetInsts:
		return errSetInsts
	case x.runes >= MaxRegexSetRunes:
		return errSetRunes
	}
	tree, n, runes, err := parseResourceRegex(pattern)
	if err != nil {
		return err
	}
	switch {
	case x.insts+n > MaxRegexSetInsts:
		x.insts = MaxRegexSetInsts
		return errSetInsts
	case x.runes+runes > MaxRegexSetRunes:
		x.runes = MaxRegexSetRunes
		return errSetRunes
	}
	x.runes += runes
	prog, err := compileAnchored(tree)
	if err != nil {
		return err
	}
	x.insts += len(prog.Inst)
	if x.index == nil {
		x.index = make(map[string]int)
	}
	x.index[pattern] = len(x.order)
	x.order = append(x.order, pattern)
	x.patterns = append(x.patterns, x.sets.add(prog))
	return nil
}
