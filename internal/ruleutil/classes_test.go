package ruleutil

import (
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
