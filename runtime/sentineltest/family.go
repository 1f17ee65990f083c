package sentineltest

import (
	"strings"
	"testing"
)

// within reports whether tb is test or runs under it (a subtest at any
// depth). Subtest names extend their parent's with "/" and are unique
// within a test binary, so names tell the family.
func within(tb, test testing.TB) bool {
	return tb == test || strings.HasPrefix(tb.Name(), test.Name()+"/")
}
