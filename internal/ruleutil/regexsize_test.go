package ruleutil

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compiledSize is what progSize must equal: the instructions of the
// anchored, simplified, compiled pattern.
func compiledSize(t testing.TB, pattern string) (estimate int64, compiled int, ok bool) {
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return 0, 0, false
	}
	anchored := &syntax.Regexp{Op: syntax.OpConcat, Flags: syntax.Perl, Sub: []*syntax.Regexp{{Op: syntax.OpBeginText}, tree, {Op: syntax.OpEndText}}}
	prog, err := syntax.Compile(anchored.Simplify())
	require.NoError(t, err)
	return progSize(anchored), len(prog.Inst), true
}

// The cap is checked on the parsed tree, so the count must be Compile's
// own, or a pattern near the cap would be refused or let through wrongly.
func TestProgSizeIsWhatCompileMakes(t *testing.T) {
	for _, p := range []string{
		``, `a`, `abc`, `(?i)abc`, `[a-z]`, `.`, `(?s).`, `^$`, `\b`, `(?m)^a$`,
		`a*`, `a+`, `a?`, `a*?`, `(?:a*)*`, `(?:a+)+`, `(?:a?)?`, `(?:a*?)*`, `(?:a*)+`, `(?:a?)*`, `(?:)*`, `(?:)+`, `(a*)*`, `(?:a|)*`,
		`a{0}`, `a{1}`, `a{2}`, `a{0,1}`, `a{0,5}`, `a{2,5}`, `a{3,}`, `a{1,}`, `a{0,}`, `(?:a?){0,1}`, `(?:a?){2,4}`, `(?:a*){3,}`, `(?:){3,5}`,
		`(abc){2,4}?`, `((a){2}){3}`, `(?:(?:ab){10}c){5,7}`, `(a|b|c)`, `a|b`, `a|`, `|a`, `ab|cd|`, `[^\x00-\x{10FFFF}]`, `a[^\x00-\x{10FFFF}]`,
		`[^\x00-\x{10FFFF}]|a`, `a|[^\x00-\x{10FFFF}]|b`, `(?:[^\x00-\x{10FFFF}])*`, `(?:[^\x00-\x{10FFFF}])+`, `(?:[^\x00-\x{10FFFF}])?`, `([^\x00-\x{10FFFF}])`,
		`(?:[^\x00-\x{10FFFF}]){0,3}`, `(?:[^\x00-\x{10FFFF}]){2,}`, `(?:[^\x00-\x{10FFFF}]|)*`, `[\pL\pN_.~-]{990}`, `(?:abcdefghijklmno){1000}`,
		`\w{1000}\w{1000}`, `(?U)a+b*`, `\Qa.b`, `x(?:y(?:z)?)*`, `(?:\b)*`, `(?:^)+`, `(?:$){2,3}`,
	} {
		est, n, ok := compiledSize(t, p)
		require.True(t, ok, p)
		assert.EqualValues(t, n, est, "%q", p)
	}
}

// FuzzProgSize: for every pattern that parses, progSize is what Compile
// makes.
func FuzzProgSize(f *testing.F) {
	for _, p := range []string{`a{2,5}`, `(?:a*)*`, `(?:[^\x00-\x{10FFFF}])+`, `((a){2}){3}?`, `(?:|a){0,3}`} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		if len(pattern) > 256 {
			return
		}
		if est, n, ok := compiledSize(t, pattern); ok {
			require.EqualValues(t, n, est, "%q", pattern)
		}
	})
}

// A pattern over the cap is refused without being compiled, whatever its
// size: the count comes from the parsed tree.
func TestOverCapPatternsAreNotCompiled(t *testing.T) {
	var x Regexes
	before := RegexCompilations()
	for i := range 300 {
		p := fmt.Sprintf(`(?:abcdefghijklmn%c){1000}`, 'a'+i%26) + strings.Repeat("z", i/26)
		assert.ErrorContains(t, x.Compile(p), fmt.Sprintf("compiles to %d instructions, over the cap of 5000", 15004+i/26))
	}
	assert.Zero(t, RegexCompilations()-before)

	_, err := CompileResourceRegex(`(?:abcdefghijklmno){1000}`)
	assert.ErrorContains(t, err, "compiles to 15004 instructions")
	assert.Zero(t, RegexCompilations()-before)
}

// The runes the parser builds into classes are budgeted per rule set: a
// 4 KiB pattern of \pL holds about 1.8 million. Once the budget is spent
// further patterns are refused unparsed; the patterns before it stay.
func TestRegexSetRuneBudget(t *testing.T) {
	_, err := CompileResourceRegex(strings.Repeat(`\pL`, MaxRegexLen/3))
	assert.ErrorContains(t, err, "runes, over the cap of 1048576")

	var x Regexes
	unicode := strings.Repeat(`[\pL\pN]`, 100) // 100 classes of about 1,500 runes
	tree, err := syntax.Parse(unicode, syntax.Perl)
	require.NoError(t, err)
	fit := MaxRegexSetRunes / treeRunes(tree)
	var refused int
	for i := range 10 {
		if err := x.Compile(fmt.Sprintf("/%d/%s", i, unicode)); err != nil {
			refused++
			assert.ErrorContains(t, err, "runes in their literals and classes in all")
		}
	}
	assert.Equal(t, 10-fit, refused, "the patterns past the budget")
	require.NoError(t, x.Compile("/0/"+unicode), "compiled before")
	require.NoError(t, x.Build())
	assert.True(t, x.Set().Match("/3/"+strings.Repeat("a", 100)).Has(x.Pattern("/3/"+unicode)))

	// A class repeated with {n} is built, and counted, once.
	var y Regexes
	for i := range 90 {
		require.NoError(t, y.Compile(fmt.Sprintf(`/%d/[\pL\pN]{1000}`, i)))
	}
}
