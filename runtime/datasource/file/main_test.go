package file_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(quiet) // tests that read the log capture it themselves
	// The runtime's cached clock may tick in the background; it is not ours.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"))
}

var quiet = slog.New(slog.DiscardHandler)

const (
	waitFor = 5 * time.Second
	tick    = 5 * time.Millisecond
)

// mode is how a test sees changes: through fsnotify alone (polling slowed
// to an hour, so a pass proves the events work), or by polling alone.
type mode struct {
	name string
	opts []file.Option
}

var modes = []mode{
	{"fsnotify", []file.Option{file.WithDebounce(10 * time.Millisecond), file.WithPollInterval(time.Hour)}},
	{"poll", []file.Option{file.WithoutFSNotify(), file.WithPollInterval(15 * time.Millisecond)}},
}

// fixture is a watched rule file with a fake rule kind.
type fixture struct {
	t    *testing.T
	dir  string
	path string
	m    *fakerules.Manager
	src  *file.Source

	mu     sync.Mutex
	loaded [][]string // every rule list the property loaded, in order
}

func newFixture(t *testing.T) *fixture {
	dir := t.TempDir()
	f := &fixture{t: t, dir: dir, path: filepath.Join(dir, "flow.json"), m: fakerules.New("flow")}
	f.m.Property().Listen(func(rules []fakerules.Rule) {
		var names []string
		for _, r := range rules {
			names = append(names, r.Resource)
		}
		f.mu.Lock()
		f.loaded = append(f.loaded, names)
		f.mu.Unlock()
	})
	return f
}

func (f *fixture) watch(opts ...file.Option) *file.Source {
	f.t.Helper()
	src, err := file.Watch(context.Background(), f.path, f.m.Kind(), opts...)
	require.NoError(f.t, err)
	f.t.Cleanup(func() { _ = src.Close() })
	f.src = src
	return src
}

func (f *fixture) write(content string) {
	f.t.Helper()
	require.NoError(f.t, os.WriteFile(f.path, []byte(content), 0o644))
}

// replace writes content to a temporary file and renames it over the rule
// file, so that no read sees it half written.
func (f *fixture) replace(content string) {
	f.t.Helper()
	tmp := f.path + ".tmp"
	require.NoError(f.t, os.WriteFile(tmp, []byte(content), 0o644))
	require.NoError(f.t, os.Rename(tmp, f.path))
}

// eventuallyInForce waits until the rules in force are exactly names.
func (f *fixture) eventuallyInForce(names ...string) {
	f.t.Helper()
	require.Eventually(f.t, func() bool {
		got := f.m.Resources()
		if len(got) != len(names) {
			return false
		}
		for i := range got {
			if got[i] != names[i] {
				return false
			}
		}
		return true
	}, waitFor, tick, "rules in force: %v, want %v (last error %v)", f.m.Resources(), names, f.src.LastError())
	require.Eventually(f.t, func() bool { return f.src.LastError() == nil }, waitFor, tick)
}

// eventuallyRefused waits for a refusal that satisfies ok.
func (f *fixture) eventuallyRefused(ok func(error) bool) error {
	f.t.Helper()
	require.Eventually(f.t, func() bool {
		err := f.src.LastError()
		return err != nil && ok(err)
	}, waitFor, tick, "last error: %v", f.src.LastError())
	return f.src.LastError()
}

// neverEmpty checks that no load ever put an empty rule set in force.
func (f *fixture) neverEmpty() {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, l := range f.loaded {
		require.NotEmpty(f.t, l, "load %d put no rules in force", i)
	}
}

var _ datasource.Kind = fakerules.New("x").Kind()
