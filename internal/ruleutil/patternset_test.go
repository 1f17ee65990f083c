package ruleutil

import (
	"strings"
	"testing"
	"time"

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

func FuzzPatternSetAgreesWithRegexp(f *testing.F) {
	f.Add(`/api/.*`, `(?i)x\b`, "/api/X")
	f.Add(`a|b`, `(?m)^b$`, "a\nb")
	f.Add(`[α-ω]+`, `.*\Bz`, "αβz")
	f.Fuzz(func(t *testing.T, p1, p2, name string) {
		x := &Regexes{}
		var ps []string
		for _, p := range []string{p1, p2} {
			if len(p) > 64 {
				continue
			}
			if err := x.Compile(p); err == nil {
				ps = append(ps, p)
			}
		}
		if x.Build() != nil {
			return // refused as too complex: nothing to compare
		}
		m := x.Set().Match(name)
		for _, p := range ps {
			re, _ := CompileResourceRegex(p)
			require.Equal(t, re.MatchString(name), m.Has(x.Pattern(p)), "%q on %q", p, name)
		}
	})
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
