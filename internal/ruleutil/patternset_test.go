package ruleutil

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func build(t testing.TB, patterns ...string) (*Regexes, error) {
	t.Helper()
	x := &Regexes{}
	for _, p := range patterns {
		if err := x.Compile(p); err != nil {
			return nil, err
		}
	}
	return x, x.Build()
}

// Each pattern keeps Go's regexp meaning over the whole name: the
// automata agree with regexp.MatchString on every name.
func TestPatternSetAgreesWithRegexp(t *testing.T) {
	patterns := []string{
		`/api/.*`, `GET:/users/[0-9]+`, `com\.foo\..*:get.*`, `(?i)Order`, `.*\bid\b.*`, `(?m)a$\nb`, `(?s)a.b`, `a.b`,
		`\pL+`, `[^a-z]*`, `x*`, ``, `(?i)straße`, `é+`, `\B.*`, `^a|b$`, `(a|ab)(c|bcd)(d*)`, `\d{2,3}`, `(?U)a+?`,
	}
	names := []string{"", "/api/", "/api/x", "GET:/users/12", "GET:/users/", "com.foo.Bar:getX", "order", "ORDER", "OrDeR",
		"the id here", "the idea", "a\nb", "a\nbb", "a\nb\n", "a\x00b", "a\nb", "über", "日本", "abc", "ABC", "xxx", "STRASSE", "straße", "STRAẞE",
		"ééé", "e\u0301", "\xff\xfe", "a", "b", "ab", "abcd", "12", "123", "1234", "aaa"}
	x, err := build(t, patterns...)
	require.NoError(t, err)
	set := x.Set()
	for _, name := range names {
		m := set.Match(name)
		any := false
		for _, p := range patterns {
			re, err := CompileResourceRegex(p)
			require.NoError(t, err)
			want := re.MatchString(name)
			any = any || want
			assert.Equal(t, want, m.Has(x.Pattern(p)), "%q on %q", p, name)
		}
		assert.Equal(t, any, set.Any(name), "any on %q", name)
	}
	assert.False(t, set.Match("x").Has(-1))
	var none *PatternSet
	assert.False(t, none.Any("x"))
	assert.False(t, none.Match("x").Has(0))
}

// FuzzPatternSetAgreesWithRegexp: whatever else a rule set holds, each of
// its patterns matches the names Go's regexp matches with it, names of
// invalid UTF-8 and surrogate encodings included. Besides the fuzzed name,
// names are made of the runes at each bound of the patterns' classes, and
// just outside it, so that two classes merged wrongly show.
func FuzzPatternSetAgreesWithRegexp(f *testing.F) {
	f.Add(`/api/.*`, `(?i)x\b`, `[α-ω]+`, `(?m)^b$`, "/api/X")
	f.Add(`b[\x{D800}-\x{FFFD}]`, `b[\x{D800}-\x{DFFF}]`, `a|b`, ``, "b\xff")
	f.Add(`.*\Bz`, `[^a-z]*`, `(?s)a.b`, `\pL+`, "αβz")
	f.Fuzz(func(t *testing.T, p1, p2, p3, p4, name string) {
		x := &Regexes{}
		var ps []string
		for _, p := range []string{p1, p2, p3, p4} {
			if len(p) <= 64 && x.Compile(p) == nil {
				ps = append(ps, p)
			}
		}
		if x.Build() != nil {
			return // refused as too complex: nothing to compare
		}
		names := []string{name}
		for _, r := range boundRunes(x, 24) {
			names = append(names, name+r, r+name, r)
		}
		set := x.Set()
		for _, n := range names {
			m := set.Match(n)
			anyMatch := false
			for _, p := range ps {
				re, err := CompileResourceRegex(p)
				require.NoError(t, err)
				want := re.MatchString(n)
				anyMatch = anyMatch || want
				require.Equal(t, want, m.Has(x.Pattern(p)), "%q on %q, beside %q", p, n, ps)
			}
			require.Equal(t, anyMatch, set.Any(n), "any of %q on %q", ps, n)
		}
	})
}

// boundRunes is up to limit runes at and around the bounds of x's rune
// sets, encoded as names hold them: a surrogate as its three bytes of
// UTF-8 form, which Go reads as invalid bytes.
func boundRunes(x *Regexes, limit int) []string {
	var out []string
	// Classes first: their bounds are where sets can be confused.
	sets := slices.Clone(x.sets.ranges)
	slices.SortStableFunc(sets, func(a, b []rune) int { return len(b) - len(a) })
	for _, ranges := range sets {
		for _, r := range ranges {
			for _, c := range []rune{r - 1, r, r + 1} {
				if c < 0 || c > utf8.MaxRune || len(out) == limit {
					continue
				}
				if utf8.ValidRune(c) {
					out = append(out, string(c))
				} else {
					out = append(out, string([]byte{0xe0 | byte(c>>12), 0x80 | byte(c>>6)&0x3f, 0x80 | byte(c)&0x3f}))
				}
			}
		}
	}
	return out
}

// Patterns that are cheap together share one automaton; the set is
// split only where it must be.
func TestPatternsShareAutomata(t *testing.T) {
	var ps []string
	for i := range 200 {
		ps = append(ps, "/api/v1/service"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+`/.*`)
	}
	x, err := build(t, ps...)
	require.NoError(t, err)
	assert.Equal(t, 1, x.Set().Automata())
}

// hostilePatterns are n patterns each needing a large automaton of its
// own (.*c.{10} remembers which of the last 11 runes were c), and that no
// name ever leaves: the most costly set to match that the caps allow.
func hostilePatterns(n int) []string {
	var ps []string
	for i := range n {
		ps = append(ps, `.*`+string(rune('a'+i))+`.{10}`)
	}
	return ps
}

// A pattern whose automaton explodes, or a set that would need too many
// automata, is refused with the pattern named; building stays bounded.
func TestTooComplexPatternsAreRefused(t *testing.T) {
	_, err := build(t, `.*a.{20}`)
	var pe *PatternError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, `.*a.{20}`, pe.Pattern)
	assert.Contains(t, err.Error(), "states")

	start := time.Now()
	x, err := build(t, hostilePatterns(MaxRegexAutomata)...)
	require.NoError(t, err)
	assert.Equal(t, MaxRegexAutomata, x.Set().Automata())
	t.Logf("built %d hostile automata in %v", MaxRegexAutomata, time.Since(start))

	_, err = build(t, hostilePatterns(MaxRegexAutomata+1)...)
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, err.Error(), "automata")
}

// BenchmarkMatchHostileSet matches a new 4 KiB name against the most
// costly set the caps allow.
func BenchmarkMatchHostileSet(b *testing.B) {
	x, err := build(b, hostilePatterns(MaxRegexAutomata)...)
	require.NoError(b, err)
	set := x.Set()
	name := strings.Repeat("abcdefghijklmnopq/", 4096/18+1)[:4096]
	b.ReportAllocs()
	for b.Loop() {
		set.Match(name)
	}
}
