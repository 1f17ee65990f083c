//go:build long

package generator

import "testing"

// TestRealCodeLong is TestRealCode over more modules with per-system
// files, each built and vetted for linux, windows and darwin; run it with
// -tags long. etcd's client/pkg has a file utility per system (fileutil:
// _linux, _darwin, _bsd, _windows, _unix).
func TestRealCodeLong(t *testing.T) {
	t.Parallel()
	for _, mod := range []string{
		"go.etcd.io/etcd/client/pkg/v3",
	} {
		t.Run(mod, func(t *testing.T) { generateOverModule(t, mod, []string{"windows", "darwin"}) })
	}
}
