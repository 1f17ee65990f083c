package safetext_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/sentinelgen/sentinelgen/internal/safetext"
)

func TestLabel(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"clean text unchanged", "GET:/api/order", "GET:/api/order"},
		{"unicode unchanged", "订单/ørder", "订单/ørder"},
		{"invalid byte written as \\xNN", "ab\xff", `ab\xff`},
		{"truncated rune", "a\xe4\xb8", `a\xe4\xb8`},
		{"newline and tab", "a\nb\tc\r", `a\nb\tc\r`},
		{"other C0 and DEL", "a\x00b\x1b\x7f", `a\x00b\x1b\x7f`},
		{"C1 control", "a\u0085b", `a\u0085b`},
		{"bidi override", "user\u202eexe.txt", `user\u202eexe.txt`},
		{"line separator", "a\u2028b", `a\u2028b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, safetext.Label(tt.in))
			assert.Equal(t, tt.want, safetext.Log(tt.in, 0))
		})
	}
}

func TestLabelCutsLongValuesAndKeepsThemDistinct(t *testing.T) {
	a := strings.Repeat("x", 300) + "a"
	b := strings.Repeat("x", 300) + "b"
	la, lb := safetext.Label(a), safetext.Label(b)
	assert.LessOrEqual(t, len(la), safetext.MaxLabel)
	assert.LessOrEqual(t, len(lb), safetext.MaxLabel)
	assert.NotEqual(t, la, lb, "the hash of the whole value tells them apart")
	assert.Contains(t, la, "…#")
	assert.True(t, utf8.ValidString(la))

	// Cutting never splits a character or an escape.
	multi := safetext.Label(strings.Repeat("订", 200))
	assert.True(t, utf8.ValidString(multi))
	esc := safetext.Label(strings.Repeat("\xff", 200))
	assert.True(t, strings.HasPrefix(esc, `\xff\xff`))
	assert.Regexp(t, `^(\\xff)+…#[0-9a-f]{8}$`, esc)
}

func TestLogCutsWithinTheBudget(t *testing.T) {
	s := strings.Repeat("line\n", 1<<20) // 5 MiB
	out := safetext.Log(s, 200)
	assert.LessOrEqual(t, len(out), 200)
	assert.True(t, strings.HasSuffix(out, "…(5242880 bytes)"), out)
	assert.NotContains(t, out, "\n")
	assert.LessOrEqual(t, len(safetext.Log(s, 0)), safetext.DefaultLog)
	assert.Equal(t, "short", safetext.Log("short", 200))
	assert.LessOrEqual(t, len(safetext.Log(s, 10)), 10, "a tiny budget still holds")
}

func TestCleanValuesDoNotAllocate(t *testing.T) {
	s := "GET:/api/order/{id}"
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = safetext.Label(s) }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = safetext.Log(s, 100) }))
}

func FuzzLabel(f *testing.F) {
	for _, s := range []string{"", "ab\xff", "a\nb", strings.Repeat("é", 200), "\u202e", strings.Repeat("\x00", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l := safetext.Label(s)
		if !utf8.ValidString(l) || len(l) > safetext.MaxLabel || !safetext.Clean(l) {
			t.Fatalf("Label(%q) = %q", s, l)
		}
		if safetext.Clean(s) && len(s) <= safetext.MaxLabel && l != s {
			t.Fatalf("Label changed a clean value: %q -> %q", s, l)
		}
		g := safetext.Log(s, 64)
		if !utf8.ValidString(g) || len(g) > 64 || !safetext.Clean(g) {
			t.Fatalf("Log(%q, 64) = %q", s, g)
		}
	})
}

func BenchmarkLabelClean(b *testing.B) {
	s := "GET:/api/order/{id}"
	b.ReportAllocs()
	for b.Loop() {
		_ = safetext.Label(s)
	}
}
