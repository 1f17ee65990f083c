package ruleutil_test

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/ruleutil"
)

// `getOrder)|(.*` wrapped as text in ^(?:...)$ closed the group early and
// matched every resource name.
func TestRegexCannotEscapeItsAnchors(t *testing.T) {
	for _, p := range []string{`getOrder)|(.*`, `a)|(?:.*`, `x)$|^(.*`} {
		_, err := ruleutil.CompileResourceRegex(p)
		assert.Error(t, err, p)
	}
	re, err := ruleutil.CompileResourceRegex(`a|b`)
	require.NoError(t, err)
	assert.True(t, re.MatchString("a"))
	assert.True(t, re.MatchString("b"))
	assert.False(t, re.MatchString("ab"), "the whole name must match")
	assert.False(t, re.MatchString("xa"))
	re, err = ruleutil.CompileResourceRegex(`/api/(?i)Order/.*`)
	require.NoError(t, err)
	assert.True(t, re.MatchString("/api/order/1"))
	assert.False(t, re.MatchString("x/api/order/1"))
}

func TestRegexCaps(t *testing.T) {
	_, err := ruleutil.CompileResourceRegex(strings.Repeat("a", ruleutil.MaxRegexLen+1))
	assert.ErrorContains(t, err, "over the 4096-byte cap")
	_, err = ruleutil.CompileResourceRegex(strings.Repeat(`\w{1000}`, 6))
	assert.ErrorContains(t, err, "instructions, over the cap of 5000")
	_, err = ruleutil.CompileResourceRegex(strings.Repeat(`\w{1000}`, 4))
	assert.NoError(t, err)
}

func TestRegexesCompileEachPatternOnceWithinABudget(t *testing.T) {
	var x ruleutil.Regexes
	before := ruleutil.RegexCompilations()
	require.NoError(t, x.Compile(`/api/.*`))
	require.NoError(t, x.Compile(`/api/.*`))
	assert.EqualValues(t, 1, ruleutil.RegexCompilations()-before)

	big := strings.Repeat(`\w{1000}`, 4) // about 4,000 instructions
	var errs int
	before = ruleutil.RegexCompilations()
	for i := range 300 {
		if err := x.Compile(big + strings.Repeat("x", i)); err != nil {
			errs++
			assert.ErrorContains(t, err, "over the cap of 100000 instructions in all")
		}
	}
	assert.Greater(t, errs, 270)
	assert.LessOrEqual(t, ruleutil.RegexCompilations()-before, int64(ruleutil.MaxRegexSetInsts/4000+1), "compiling stops at the budget")
}

// FuzzCompileResourceRegex: a pattern that parses alone means what its
// parsed tree, anchored, means (the pattern is compiled from its text, an
// unterminated \Q included), and nothing that does not parse alone
// compiles.
func FuzzCompileResourceRegex(f *testing.F) {
	for _, s := range []string{`a|b`, `getOrder)|(.*`, `(?i)x|y`, `a(?s).b`, `\Qa.b`, `\Qa\`, `x\Q)|(.*`, `[a-z]+\d?`, `^x$`, `(a)(?:b)`} {
		f.Add(s, "ab")
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		re, err := ruleutil.CompileResourceRegex(pattern)
		tree, perr := syntax.Parse(pattern, syntax.Perl)
		if perr != nil {
			require.Error(t, err, "%q does not parse alone", pattern)
			return
		}
		if err != nil {
			return // over a cap
		}
		exact, err := regexp.Compile(`\A(?:` + tree.String() + `)\z`)
		require.NoError(t, err)
		if re.MatchString(name) != exact.MatchString(name) {
			t.Fatalf("pattern %q, name %q: %v, want %v (%s)", pattern, name, re.MatchString(name), exact.MatchString(name), exact)
		}
	})
}

func BenchmarkCompileResourceRegex(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ruleutil.CompileResourceRegex(`/api/orders/[0-9]+(/items)?`); err != nil {
			b.Fatal(err)
		}
	}
}
