package datasource_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.json")

	_, err := datasource.ReadFile(path, 0)
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.Equal(t, path+": file is missing", err.Error(), "said once")

	_, err = datasource.ReadFile(dir, 0)
	assert.EqualError(t, err, dir+": is a directory, want a rule file")

	require.NoError(t, os.WriteFile(path, make([]byte, 11), 0o644))
	_, err = datasource.ReadFile(path, 10)
	require.ErrorIs(t, err, datasource.ErrTooLarge)
	assert.Equal(t, path+": file too large: 11 bytes, over the 10-byte cap; refused, not truncated (file.WithMaxSize raises the cap)", err.Error())

	data, err := datasource.ReadFile(path, 11)
	require.NoError(t, err)
	assert.Len(t, data, 11)
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.json")
	m := fakerules.New("flow")
	_, err := datasource.LoadFile(path, m.Kind(), 0)
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.NoError(t, os.WriteFile(path, []byte(`[{"resource":"a"}]`), 0o644))
	n, err := datasource.LoadFile(path, m.Kind(), 0)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}
