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
	require.Len(t, p.Files, 1)
	f := p.Files[0]
	assert.Equal(t, "service_sentinel.go", filepath.Base(f.Path))
	committed, err := os.ReadFile(f.Path)
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile(f.Path, f.Content, 0o644))
		return
	}
	assert.Equal(t, string(f.Content), string(committed), "stale: run go test ./generator -run TestCommittedWrappersAreCurrent -update")
	assert.Empty(t, p.Orphans)
}
