package sentinelgrpc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSanitizeOriginKeepsCleanOriginsWithoutAllocating(t *testing.T) {
	s := "billing-service"
	assert.Equal(t, s, sanitizeOrigin(s))
	allocs := testing.AllocsPerRun(100, func() { _ = sanitizeOrigin(s) })
	assert.Zero(t, allocs)
}

func FuzzSanitizeOrigin(f *testing.F) {
	for _, seed := range []string{"", "app", "a b", "\x00\xff", "é", strings.Repeat("z", 500), "tab\there", "\x7f"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := sanitizeOrigin(in)
		require.LessOrEqual(t, len(out), MaxOriginLen)
		for i := 0; i < len(out); i++ {
			require.True(t, out[i] >= 0x20 && out[i] <= 0x7e, "byte %#x at %d", out[i], i)
		}
		require.Equal(t, out, sanitizeOrigin(out), "idempotent")
		if len(in) <= MaxOriginLen && !strings.ContainsFunc(in, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
			require.Equal(t, in, out, "a clean origin is kept")
		}
		require.Len(t, out, min(len(in), MaxOriginLen), "one byte out per byte in")
	})
}
