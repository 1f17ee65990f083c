package file_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

func TestFileOperations(t *testing.T) {
	for _, md := range modes {
		t.Run(md.name, func(t *testing.T) {
			t.Run("write in place", func(t *testing.T) {
				f := newFixture(t)
				f.write(fakerules.Document("a"))
				f.watch(md.opts...)
				f.eventuallyInForce("a")
				f.write(fakerules.Document("b", "c"))
				f.eventuallyInForce("b", "c")
				f.neverEmpty()
			})
			t.Run("truncate then write never clears", func(t *testing.T) {
				f := newFixture(t)
				f.write(fakerules.Document("a"))
				f.watch(md.opts...)
				fh, err := os.OpenFile(f.path, os.O_WRONLY|os.O_TRUNC, 0)
				require.NoError(t, err)
				// The emptied file may be seen: it is refused, never loaded.
				_, err = fh.WriteString(fakerules.Document("b"))
				require.NoError(t, err)
				require.NoError(t, fh.Close())
				f.eventuallyInForce("b")
				f.neverEmpty()
			})
			t.Run("write to temp and rename over", func(t *testing.T) {
				f := newFixture(t)
				f.write(fakerules.Document("a"))
				f.watch(md.opts...)
				tmp := filepath.Join(f.dir, ".flow.json.swp")
				require.NoError(t, os.WriteFile(tmp, []byte(fakerules.Document("renamed")), 0o644))
				require.NoError(t, os.Rename(tmp, f.path))
				f.eventuallyInForce("renamed")
			})
			t.Run("delete keeps rules, recreate is picked up", func(t *testing.T) {
				f := newFixture(t)
				f.write(fakerules.Document("a"))
				f.watch(md.opts...)
				require.NoError(t, os.Remove(f.path))
				f.eventuallyRefused(func(err error) bool { return errors.Is(err, fs.ErrNotExist) })
				assert.Equal(t, []string{"a"}, f.m.Resources())
				f.write(fakerules.Document("back"))
				f.eventuallyInForce("back")
			})
			t.Run("the same content coming back after deletion clears the error", func(t *testing.T) {
				f := newFixture(t)
				f.write(fakerules.Document("a"))
				f.watch(md.opts...)
				require.NoError(t, os.Remove(f.path))
				f.eventuallyRefused(func(err error) bool { return errors.Is(err, fs.ErrNotExist) })
				f.write(fakerules.Document("a"))
				f.eventuallyInForce("a")
			})
			t.Run("symlink swap as a ConfigMap does", func(t *testing.T) {
				f := newFixture(t)
				writeConfigMap(t, f.dir, "..2026_11_29_10_00_00.1", fakerules.Document("v1"))
				require.NoError(t, os.Symlink("..2026_11_29_10_00_00.1", filepath.Join(f.dir, "..data")))
				require.NoError(t, os.Symlink(filepath.Join("..data", "flow.json"), f.path))
				f.watch(md.opts...)
				f.eventuallyInForce("v1")

				swapConfigMap(t, f.dir, "..2026_11_29_10_00_00.1", "..2026_11_29_10_05_00.2", fakerules.Document("v2"))
				f.eventuallyInForce("v2")
				swapConfigMap(t, f.dir, "..2026_11_29_10_05_00.2", "..2026_11_29_10_10_00.3", fakerules.Document("v3", "v3b"))
				f.eventuallyInForce("v3", "v3b")
			})
			t.Run("half-written file keeps rules until completed", func(t *testing.T) {
				f := newFixture(t)
				f.write(fakerules.Document("a"))
				f.watch(md.opts...)
				full := fakerules.Document("b", "c")
				f.write(full[:len(full)/2])
				err := f.eventuallyRefused(func(err error) bool { return errors.Is(err, datasource.ErrSyntax) })
				assert.Contains(t, err.Error(), "truncated or still being written")
				assert.Equal(t, []string{"a"}, f.m.Resources())
				f.write(full)
				f.eventuallyInForce("b", "c")
			})
			t.Run("emptied file keeps rules", func(t *testing.T) {
				for _, empty := range []string{"", "  \n\t"} {
					f := newFixture(t)
					f.write(fakerules.Document("a"))
					f.watch(md.opts...)
					f.write(empty)
					f.eventuallyRefused(func(err error) bool { return errors.Is(err, datasource.ErrEmpty) })
					assert.Equal(t, []string{"a"}, f.m.Resources())
				}
			})
			t.Run("empty array clears deliberately", func(t *testing.T) {
				f := newFixture(t)
				f.write(fakerules.Document("a"))
				f.watch(md.opts...)
				f.write("[]")
				f.eventuallyInForce()
			})
			t.Run("invalid rule keeps rules and names it", func(t *testing.T) {
				f := newFixture(t)
				f.write(fakerules.Document("a"))
				f.watch(md.opts...)
				f.write(`[{"resource":"ok"},{"resource":"getOrder","controlBehavior":7}]`)
				err := f.eventuallyRefused(func(error) bool { return true })
				assert.Equal(t, f.path+`: rule 1 (resource "getOrder"): controlBehavior 7 is not one of 0..3`, err.Error())
				assert.Equal(t, []string{"a"}, f.m.Resources())
			})
		})
	}
}

func writeConfigMap(t *testing.T, dir, version, content string) {
	t.Helper()
	require.NoError(t, os.Mkdir(filepath.Join(dir, version), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, version, "flow.json"), []byte(content), 0o644))
}

// swapConfigMap updates a mounted ConfigMap as the kubelet's AtomicWriter
// does: a new timestamped directory, a ..data_tmp link to it renamed over
// ..data, then the old directory removed. flow.json itself (a link to
// ..data/flow.json) never changes.
func swapConfigMap(t *testing.T, dir, old, version, content string) {
	t.Helper()
	writeConfigMap(t, dir, version, content)
	require.NoError(t, os.Symlink(version, filepath.Join(dir, "..data_tmp")))
	require.NoError(t, os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")))
	require.NoError(t, os.RemoveAll(filepath.Join(dir, old)))
}

func TestRefusedContent(t *testing.T) {
	md := modes[0]
	tests := []struct {
		name    string
		content func() []byte
		is      error
		msg     string
	}{
		{"a 5 MiB file is refused, not truncated", func() []byte { return bigFile(5 << 20) }, datasource.ErrTooLarge, "over the 4194304-byte cap; refused, not truncated"},
		{"invalid UTF-8", func() []byte { return []byte("[{\"resource\":\"b\xc3\x28\"}]") }, datasource.ErrInvalidUTF8, ":1:16: invalid UTF-8"},
		{"NaN", func() []byte { return []byte(`[{"resource":"b","count":NaN}]`) }, datasource.ErrSyntax, "NaN and Infinity are not JSON numbers"},
		{"huge number", func() []byte { return []byte(`[{"resource":"b","count":1e400}]`) }, nil, `rule 0 (resource "b"): count 1e400 does not fit a float64`},
		{"negative huge number", func() []byte { return []byte(`[{"resource":"b","count":-1e999}]`) }, nil, `count -1e999 does not fit a float64`},
		{"null", func() []byte { return []byte(`null`) }, nil, `found null (write [] to clear the rules)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(fakerules.Document("a"))
			f.watch(md.opts...)
			require.NoError(t, os.WriteFile(f.path, tt.content(), 0o644))
			err := f.eventuallyRefused(func(err error) bool { return tt.is == nil || errors.Is(err, tt.is) })
			assert.Contains(t, err.Error(), tt.msg)
			assert.Equal(t, []string{"a"}, f.m.Resources(), "the rules in force stay")
			f.write(fakerules.Document("next"))
			f.eventuallyInForce("next")
		})
	}
}

// bigFile is a valid rule file of about size bytes.
func bigFile(size int) []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"resource":"resource-%d","count":10,"grade":1,"limitApp":"default"}`, i)
	}
	b.WriteString("]")
	return []byte(b.String())
}

func TestMaxSizeOption(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, os.WriteFile(f.path, bigFile(5<<20), 0o644))
	f.watch(file.WithMaxSize(8 << 20))
	require.NoError(t, f.src.LastError())
	assert.Greater(t, len(f.m.Rules()), 50_000)

	g := newFixture(t)
	g.write(fakerules.Document("a", "b"))
	g.watch(file.WithMaxSize(10))
	assert.ErrorIs(t, g.src.LastError(), datasource.ErrTooLarge)
	assert.Empty(t, g.m.Rules())
}

func TestHundredThousandRuleFile(t *testing.T) {
	f := newFixture(t)
	names := make([]string, 100_000)
	for i := range names {
		names[i] = fmt.Sprintf("r%d", i)
	}
	f.write(fakerules.Document(names...))
	f.watch(modes[1].opts...)
	require.NoError(t, f.src.LastError())
	assert.Equal(t, 100_000, f.src.Status().Rules)
	got := f.m.Resources()
	require.Len(t, got, 100_000)
	assert.Equal(t, "r99999", got[99_999])
}

func TestMissingFileAtStartIsPickedUpLater(t *testing.T) {
	for _, md := range modes {
		t.Run(md.name, func(t *testing.T) {
			f := newFixture(t)
			src := f.watch(md.opts...)
			require.ErrorIs(t, src.LastError(), fs.ErrNotExist)
			assert.Contains(t, src.LastError().Error(), "flow.json: file is missing")
			f.write(fakerules.Document("late"))
			f.eventuallyInForce("late")
		})
	}
}

func TestMissingOrMalformedFileAtStartSaysNoRulesAreInForce(t *testing.T) {
	logs := logtest.Capture(t)
	f := newFixture(t)
	src := f.watch(modes[1].opts...)
	assert.Equal(t, f.path+": file is missing", src.LastError().Error(), "said once")
	lines := logs.Lines("rule file not loaded; none of its rules are in force")
	require.Len(t, lines, 1)
	assert.Equal(t, 1, strings.Count(lines[0], "file is missing"))
	assert.NotContains(t, lines[0], "does not exist")
	assert.Zero(t, logs.Count("the rules in force are kept"), "none were")
	require.NoError(t, src.Close())

	logs = logtest.Capture(t)
	f.write(`[{"resource":`)
	src = f.watch(modes[1].opts...)
	require.ErrorIs(t, src.LastError(), datasource.ErrSyntax)
	assert.Equal(t, 1, logs.Count("rule file not loaded; none of its rules are in force"))
	assert.Zero(t, logs.Count("the rules in force are kept"))
}

func TestMissingDirectoryAtStartIsWatchedOnceItExists(t *testing.T) {
	f := newFixture(t)
	f.path = filepath.Join(f.dir, "config", "flow.json")
	src := f.watch(file.WithDebounce(10*time.Millisecond), file.WithPollInterval(20*time.Millisecond))
	assert.Equal(t, "poll", src.Status().Watching)
	require.NoError(t, os.Mkdir(filepath.Join(f.dir, "config"), 0o755))
	require.Eventually(t, func() bool { return src.Status().Watching == "fsnotify+poll" }, waitFor, tick)
	f.write(fakerules.Document("x"))
	f.eventuallyInForce("x")
}

func TestUnchangedContentDoesNotReload(t *testing.T) {
	for _, md := range modes {
		t.Run(md.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(fakerules.Document("a"))
			src := f.watch(md.opts...)
			reads := src.Status().Reads
			loads := f.m.Loads()
			f.write(fakerules.Document("a")) // same bytes, new mtime
			require.Eventually(t, func() bool { return src.Status().Reads > reads }, waitFor, tick)
			assert.Equal(t, loads, f.m.Loads())
			assert.Equal(t, 1, src.Status().Loads)
		})
	}
}

func TestBurstsAreCoalesced(t *testing.T) {
	f := newFixture(t)
	f.write(fakerules.Document("a"))
	src := f.watch(file.WithDebounce(200*time.Millisecond), file.WithPollInterval(time.Hour))
	for i := range 20 {
		f.write(fakerules.Document(fmt.Sprintf("v%d", i)))
	}
	f.eventuallyInForce("v19")
	assert.Less(t, src.Status().Reads, 10, "20 writes within the debounce are read a few times, not 20")
}

func TestRefusalIsLoggedOnceAndReported(t *testing.T) {
	logs := logtest.Capture(t)
	f := newFixture(t)
	f.write(fakerules.Document("a"))
	src := f.watch(modes[1].opts...)
	require.Equal(t, 1, logs.Count("sentinel: rules loaded"))
	// Replaced by rename: a poll must not catch the file truncated and
	// half written (a refusal of its own).
	f.replace(`[{"resource":""}]`)
	f.eventuallyRefused(func(error) bool { return true })
	// More polls of the same bad file say nothing more.
	reads := src.Status().Reads
	f.replace(`[{"resource":""}]`)
	require.Eventually(t, func() bool { return src.Status().Reads > reads }, waitFor, tick)
	assert.Equal(t, 1, logs.Count("rule file refused; the rules in force are kept"))
	assert.Equal(t, 1, logs.Count(`rule 0: resource is blank`))
	st := src.Status()
	assert.Equal(t, 1, st.Refusals)
	assert.Equal(t, 1, st.Loads)
	assert.Equal(t, 1, st.Rules, "Rules counts what the last good load put in force")
}

func TestManyBadRulesAreSummarisedInTheLog(t *testing.T) {
	logs := logtest.Capture(t)
	f := newFixture(t)
	bad := make([]string, 50)
	for i := range bad {
		bad[i] = `{"resource":""}`
	}
	f.write("[" + strings.Join(bad, ",") + "]")
	src := f.watch()
	require.Error(t, src.LastError())
	assert.Equal(t, 50, strings.Count(src.LastError().Error(), "\n")+1, "LastError has every rule")
	assert.Equal(t, 1, logs.Count("and 40 more"))
}

func TestWatchArguments(t *testing.T) {
	dir := t.TempDir()
	k := newFixture(t).m.Kind()
	_, err := file.Watch(context.Background(), filepath.Join(dir, "f.json"), nil)
	assert.ErrorContains(t, err, "nil kind")
	_, err = file.Watch(context.Background(), "", k)
	assert.ErrorContains(t, err, "empty path")
	_, err = file.Watch(context.Background(), dir, k)
	assert.ErrorContains(t, err, "is a directory")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = file.Watch(ctx, filepath.Join(dir, "f.json"), k)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestStatus(t *testing.T) {
	f := newFixture(t)
	f.write(fakerules.Document("a", "b"))
	before := time.Now()
	src := f.watch(modes[0].opts...)
	st := src.Status()
	assert.Equal(t, f.path, st.Path)
	assert.Equal(t, "flow", st.Kind)
	assert.Equal(t, "fsnotify+poll", st.Watching)
	assert.Equal(t, 2, st.Rules)
	assert.NoError(t, st.LastError)
	assert.False(t, st.LastLoad.Before(before))
	require.NoError(t, src.Close())
	assert.Equal(t, "closed", src.Status().Watching)

	g := newFixture(t)
	assert.Equal(t, "poll", g.watch(file.WithoutFSNotify()).Status().Watching)
}

func TestSymlinkToAnotherDirectoryIsFollowed(t *testing.T) {
	f := newFixture(t)
	elsewhere := t.TempDir()
	target := filepath.Join(elsewhere, "real-flow.json")
	require.NoError(t, os.WriteFile(target, []byte(fakerules.Document("a")), 0o644))
	require.NoError(t, os.Symlink(target, f.path))
	f.watch(modes[0].opts...) // fsnotify only: polling is an hour away
	f.eventuallyInForce("a")
	require.NoError(t, os.WriteFile(target, []byte(fakerules.Document("edited")), 0o644))
	f.eventuallyInForce("edited")

	// Re-pointing the link to a third directory moves the watch along.
	third := t.TempDir()
	next := filepath.Join(third, "flow.json")
	require.NoError(t, os.WriteFile(next, []byte(fakerules.Document("moved")), 0o644))
	tmpLink := filepath.Join(f.dir, ".flow.json.tmp")
	require.NoError(t, os.Symlink(next, tmpLink))
	require.NoError(t, os.Rename(tmpLink, f.path))
	f.eventuallyInForce("moved")
	require.NoError(t, os.WriteFile(next, []byte(fakerules.Document("moved-edited")), 0o644))
	f.eventuallyInForce("moved-edited")
}

func TestDirectoryRemovedAndRecreated(t *testing.T) {
	f := newFixture(t)
	f.path = filepath.Join(f.dir, "conf", "flow.json")
	require.NoError(t, os.Mkdir(filepath.Join(f.dir, "conf"), 0o755))
	f.write(fakerules.Document("a"))
	src := f.watch(file.WithDebounce(10*time.Millisecond), file.WithPollInterval(20*time.Millisecond))
	require.Equal(t, "fsnotify+poll", src.Status().Watching)
	require.NoError(t, os.RemoveAll(filepath.Join(f.dir, "conf")))
	require.Eventually(t, func() bool { return src.Status().Watching == "poll" }, waitFor, tick, "the dead watch is noticed")
	f.eventuallyRefused(func(err error) bool { return errors.Is(err, fs.ErrNotExist) })
	assert.Equal(t, []string{"a"}, f.m.Resources())
	require.NoError(t, os.Mkdir(filepath.Join(f.dir, "conf"), 0o755))
	require.Eventually(t, func() bool { return src.Status().Watching == "fsnotify+poll" }, waitFor, tick)
	f.write(fakerules.Document("b"))
	f.eventuallyInForce("b")
}

var _ datasource.Source = (*file.Source)(nil)
