package generator

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommittedWrappersAreCurrent regenerates the wrappers the behaviour
// tests and the benchmark run (internal/wrappertest) and compares them
// with the committed file, so that those tests always exercise what the
// generator writes today.
func TestCommittedWrappersAreCurrent(t *testing.T) {
	t.Parallel()
	res, err := Generate(Config{Patterns: []string{"./internal/wrappertest"}})
	require.NoError(t, err)
	require.Len(t, res.Packages, 1)
	p := res.Packages[0]
	require.Empty(t, p.Errors)
	var names []string
	for _, f := range p.Files {
		names = append(names, filepath.Base(f.Path))
	}
	assert.Equal(t, []string{"decorate_sentinel.go", "service_sentinel.go"}, names)
	for _, f := range p.Files {
		committed, err := os.ReadFile(f.Path)
		require.NoError(t, err)
		if *update {
			require.NoError(t, os.WriteFile(f.Path, f.Content, 0o644))
			continue
		}
		assert.Equal(t, string(f.Content), string(committed), "%s stale: run go test ./generator -run TestCommittedWrappersAreCurrent -update", filepath.Base(f.Path))
	}
	assert.Empty(t, p.Orphans)
}
