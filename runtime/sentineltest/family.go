package sentineltest

import "strings"

// within reports whether the test named name is the test named test or
// runs under it (a subtest at any depth). Subtest names extend their
// parent's with "/" and are unique within a test binary, so names tell the
// family; they also make safe map keys, which a testing.TB need not be.
func within(name, test string) bool {
	return name == test || strings.HasPrefix(name, test+"/")
}
