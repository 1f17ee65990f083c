package ruleutil

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two classes that differ only in surrogate code points read the same
// names but are two sets: each keeps Go's regexp meaning beside the other,
// in either order.
func TestSurrogateBoundsKeepClassesApart(t *testing.T) {
	wide, narrow := `b[\x{D800}-\x{FFFD}]`, `b[\x{D800}-\x{DFFF}]`
	for _, order := range [][]string{{wide, narrow}, {narrow, wide}} {
		x, err := build(t, order...)
		require.NoError(t, err)
		for name, want := range map[string]bool{"b\uE000": true, "b\xff": true, "b\uFFFD": true, "b\xed\xa0\x80": false, "b\uD7FF": false, "b": false} {
			m := x.Set().Match(name)
			assert.Equal(t, want, m.Has(x.Pattern(wide)), "%s on %q", wide, name)
			assert.False(t, m.Has(x.Pattern(narrow)), "%s on %q", narrow, name)
		}
	}
}

// classRules is n patterns of about 1,000 instructions reading class.
func classRules(n int, class string) []string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = fmt.Sprintf(`/svc%02d/%s{990}`, i, class)
	}
	return ps
}

// BenchmarkBuildRegexSet compiles and builds 97 rules of ~1,000
// instructions each, reading a Unicode class or a plain rune: the two cost
// about the same (the class took 40 times as long, and 30 times the
// memory).
func BenchmarkBuildRegexSet(b *testing.B) {
	for _, bc := range []struct{ name, class string }{{"plain", "x"}, {"classes", `[\pL\pN_.~-]`}, {"foldedClasses", `(?i:[\p{Greek}k])`}} {
		b.Run(bc.name, func(b *testing.B) {
			ps := classRules(97, bc.class)
			b.ReportAllocs()
			for b.Loop() {
				x := &Regexes{}
				for _, p := range ps {
					_ = x.Compile(p)
				}
				_ = x.Build() // refused: too many automata; bounded either way
			}
		})
	}
}

// BenchmarkRefuseOverCapPatterns refuses 300 patterns of 15,000
// instructions each (compiled before refusing, they took a second).
func BenchmarkRefuseOverCapPatterns(b *testing.B) {
	ps := make([]string, 300)
	for i := range ps {
		ps[i] = fmt.Sprintf(`(?:abcdefghijklmn%c){1000}`, 'a'+i%26) + strings.Repeat("z", i/26)
	}
	b.ReportAllocs()
	for b.Loop() {
		x := &Regexes{}
		for _, p := range ps {
			if x.Compile(p) == nil {
				b.Fatal("compiled")
			}
		}
	}
}
