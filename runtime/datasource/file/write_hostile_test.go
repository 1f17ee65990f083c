//go:build unix

package file_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

// A write-back that would not load again (over the cap a Source reads)
// used to be written anyway: the watcher refused it and a restart loaded
// nothing. It is refused and the file is left as it was.
func TestWriteRefusesWhatWouldNotLoadAgain(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.json")
	require.NoError(t, os.WriteFile(path, []byte(`[{"resource":"kept","count":1}]`), 0o644))
	m := fakerules.New("flow")
	many := make([]fakerules.Rule, 2000)
	for i := range many {
		many[i] = fakerules.Rule{Resource: "r" + strings.Repeat("x", 40), Grade: 1, Count: 1}
	}
	require.NoError(t, m.LoadRules(many))

	err := file.Write(path, m.Kind(), file.WithMaxSize(64<<10))
	require.ErrorIs(t, err, file.ErrWouldNotLoad)
	require.ErrorIs(t, err, datasource.ErrTooLarge)
	assert.Contains(t, err.Error(), "over the 65536-byte cap a Source reads")
	data, rerr := os.ReadFile(path)
	require.NoError(t, rerr)
	assert.Equal(t, `[{"resource":"kept","count":1}]`, string(data), "the file is unchanged")

	// Within the cap it is written compactly, and loads again.
	require.NoError(t, file.Write(path, m.Kind()))
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "\n  ", "compact, not indented")
	n, err := datasource.LoadFile(path, fakerules.New("flow").Kind(), 0)
	require.NoError(t, err)
	assert.Equal(t, 2000, n)
}

// A kind whose encoding does not decode again is refused too.
func TestWriteRefusesAnEncodingThatDoesNotDecode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flow.json")
	err := file.Write(path, brokenKind{datasource.Flow})
	require.ErrorIs(t, err, file.ErrWouldNotLoad)
	_, serr := os.Stat(path)
	assert.True(t, errors.Is(serr, os.ErrNotExist), "nothing written")
}

type brokenKind struct{ datasource.Kind }

func (brokenKind) Encode() ([]byte, error) { return []byte(`[{"resource":"x","count":-1}]`), nil }

// Write-back used to follow a symbolic link wherever it pointed: a link
// planted at the rule path made the process overwrite any file it could.
func TestWriteDoesNotFollowALinkOutOfItsDirectory(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "precious")
	require.NoError(t, os.WriteFile(outside, []byte("precious"), 0o600))
	dir := t.TempDir()
	link := filepath.Join(dir, "flow.json")
	require.NoError(t, os.Symlink(outside, link))
	m := fakerules.New("flow")
	require.NoError(t, m.LoadRules([]fakerules.Rule{{Resource: "a", Grade: 1}}))

	err := file.Write(link, m.Kind())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside its directory")
	data, _ := os.ReadFile(outside)
	assert.Equal(t, "precious", string(data))
	fi, lerr := os.Lstat(link)
	require.NoError(t, lerr)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is left alone")

	// A ../ link escapes just the same.
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "other.json"), []byte("[]"), 0o644))
	require.NoError(t, os.Symlink("../other.json", filepath.Join(sub, "flow.json")))
	assert.ErrorContains(t, file.Write(filepath.Join(sub, "flow.json"), m.Kind()), "outside its directory")
}

// A ConfigMap mounts flow.json -> ..data/flow.json, ..data -> ..2026_01/:
// a write replaces the file under the mount, keeps both links, and the
// next swap of ..data is read through them.
func TestWriteThroughConfigMapLinks(t *testing.T) {
	f := newFixture(t)
	v1 := filepath.Join(f.dir, "..2026_01")
	require.NoError(t, os.Mkdir(v1, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(v1, "flow.json"), []byte(fakerules.Document("v1")), 0o644))
	require.NoError(t, os.Symlink("..2026_01", filepath.Join(f.dir, "..data")))
	require.NoError(t, os.Symlink("..data/flow.json", f.path))
	f.watch(modes[1].opts...)
	f.eventuallyInForce("v1")

	require.NoError(t, f.m.LoadRules(append(f.m.Rules(), fakerules.Rule{Resource: "written", Grade: 1})))
	require.NoError(t, file.Write(f.path, f.m.Kind()))
	f.eventuallyInForce("v1", "written")
	fi, err := os.Lstat(f.path)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is kept")

	// The next ConfigMap update swaps ..data; reads follow it.
	v2 := filepath.Join(f.dir, "..2026_02")
	require.NoError(t, os.Mkdir(v2, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(v2, "flow.json"), []byte(fakerules.Document("v2")), 0o644))
	tmp := filepath.Join(f.dir, "..data_tmp")
	require.NoError(t, os.Symlink("..2026_02", tmp))
	require.NoError(t, os.Rename(tmp, filepath.Join(f.dir, "..data")))
	f.eventuallyInForce("v2")
}

// Write-back used to give the file the writing process's owner and group.
func TestWriteKeepsOwnerAndGroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test changes a file's owner: run it as root (the CI does)")
	}
	path := filepath.Join(t.TempDir(), "flow.json")
	require.NoError(t, os.WriteFile(path, []byte("[]"), 0o640))
	require.NoError(t, os.Chown(path, 65534, 65534))
	m := fakerules.New("flow")
	require.NoError(t, m.LoadRules([]fakerules.Rule{{Resource: "a", Grade: 1}}))
	require.NoError(t, file.Write(path, m.Kind()))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	st := fi.Sys().(*syscall.Stat_t)
	assert.EqualValues(t, 65534, st.Uid)
	assert.EqualValues(t, 65534, st.Gid)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
}
