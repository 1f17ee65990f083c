package file_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

var leakOpts = []goleak.Option{goleak.IgnoreTopFunction("github.com/sentinelgen/sentinelgen/internal/clock.tick"), goleak.IgnoreCurrent()}

func TestEventsChannelSeesFirstLoadAndRefusals(t *testing.T) {
	f := newFixture(t)
	f.write(fakerules.Document("a", "b"))
	ch := make(chan datasource.Event, 10)
	f.watch(append(modes[0].opts, file.WithEvents(ch))...)
	ev := <-ch
	assert.True(t, ev.Loaded)
	assert.Equal(t, 2, ev.Rules)
	assert.Equal(t, f.path, ev.Path)
	assert.Equal(t, "flow", ev.Kind)
	assert.NoError(t, ev.Err)
	assert.False(t, ev.Time.IsZero())

	f.write("[{")
	ev = <-ch
	assert.False(t, ev.Loaded)
	assert.ErrorIs(t, ev.Err, datasource.ErrSyntax)
	assert.Zero(t, ev.Rules)
}

func TestFullEventsChannelNeverHoldsRulesBack(t *testing.T) {
	f := newFixture(t)
	f.write(fakerules.Document("a"))
	ch := make(chan datasource.Event) // nobody reads it
	f.watch(append(modes[1].opts, file.WithEvents(ch))...)
	f.write(fakerules.Document("b"))
	f.eventuallyInForce("b")
}

func TestSubscribe(t *testing.T) {
	f := newFixture(t)
	f.write(fakerules.Document("a"))
	var first atomic.Int32
	src := f.watch(append(modes[0].opts, file.WithSubscriber(func(ev datasource.Event) { first.Add(1) }))...)
	assert.Equal(t, int32(1), first.Load(), "WithSubscriber sees the first load")

	got := make(chan datasource.Event, 10)
	cancel := src.Subscribe(func(ev datasource.Event) { got <- ev })
	f.write(fakerules.Document("b"))
	ev := <-got
	assert.True(t, ev.Loaded)
	assert.Equal(t, 1, ev.Rules)

	cancel()
	f.write(fakerules.Document("c"))
	f.eventuallyInForce("c")
	assert.Empty(t, got, "a cancelled subscription hears nothing")
	assert.Equal(t, int32(3), first.Load())
	src.Subscribe(nil)() // harmless
}

func TestPanickingSubscriberDoesNotStopTheWatcher(t *testing.T) {
	logs := logtest.Capture(t)
	f := newFixture(t)
	f.write(fakerules.Document("a"))
	src := f.watch(modes[0].opts...)
	src.Subscribe(func(datasource.Event) { panic("boom") })
	f.write(fakerules.Document("b"))
	f.eventuallyInForce("b")
	f.write(fakerules.Document("c"))
	f.eventuallyInForce("c")
	assert.GreaterOrEqual(t, logs.Count("subscriber panicked"), 1)
}

func TestCloseIsIdempotentAndLeavesNoGoroutine(t *testing.T) {
	for _, md := range modes {
		t.Run(md.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, leakOpts...)
			f := newFixture(t)
			f.write(fakerules.Document("a"))
			src, err := file.Watch(context.Background(), f.path, f.m.Kind(), md.opts...)
			require.NoError(t, err)
			require.NoError(t, src.Close())
			require.NoError(t, src.Close())
			// The rules in force stay, and the file is no longer followed.
			assert.Equal(t, []string{"a"}, f.m.Resources())
		})
	}
}

func TestConcurrentCloses(t *testing.T) {
	defer goleak.VerifyNone(t, leakOpts...)
	f := newFixture(t)
	f.write(fakerules.Document("a"))
	src, err := file.Watch(context.Background(), f.path, f.m.Kind(), modes[0].opts...)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { _ = src.Close() })
	}
	wg.Wait()
}

func TestCloseFromASubscriberDoesNotDeadlock(t *testing.T) {
	defer goleak.VerifyNone(t, leakOpts...)
	f := newFixture(t)
	f.write(fakerules.Document("a"))
	var src *file.Source
	closed := make(chan struct{})
	var once sync.Once
	src, err := file.Watch(context.Background(), f.path, f.m.Kind(), modes[0].opts...)
	require.NoError(t, err)
	src.Subscribe(func(datasource.Event) {
		require.NoError(t, src.Close())
		once.Do(func() { close(closed) })
	})
	f.write(fakerules.Document("b"))
	<-closed
	require.NoError(t, src.Close())
}

func TestCloseFromAPropertyListenerDoesNotDeadlock(t *testing.T) {
	defer goleak.VerifyNone(t, leakOpts...)
	m := fakerules.New("flow")
	f := newFixture(t)
	f.m = m
	f.write(fakerules.Document("a"))
	var src atomic.Pointer[file.Source]
	done := make(chan struct{})
	var once sync.Once
	m.Property().Listen(func([]fakerules.Rule) {
		if s := src.Load(); s != nil {
			_ = s.Close()
			once.Do(func() { close(done) })
		}
	})
	s, err := file.Watch(context.Background(), f.path, m.Kind(), modes[0].opts...)
	require.NoError(t, err)
	src.Store(s)
	f.write(fakerules.Document("b"))
	<-done
	require.NoError(t, s.Close())
}

func TestContextCancelStopsWatching(t *testing.T) {
	defer goleak.VerifyNone(t, leakOpts...)
	f := newFixture(t)
	f.write(fakerules.Document("a"))
	ctx, cancel := context.WithCancel(context.Background())
	src, err := file.Watch(ctx, f.path, f.m.Kind(), modes[0].opts...)
	require.NoError(t, err)
	cancel()
	require.Eventually(t, func() bool { return src.Status().Watching == "closed" }, waitFor, tick)
	require.NoError(t, src.Close())
}

func TestWriteIsAtomicAndJavaCompatible(t *testing.T) {
	f := newFixture(t)
	f.write(fakerules.Document("a", "b"))
	src := f.watch(modes[0].opts...)
	// A tool edits the rules in force, then writes them back.
	require.NoError(t, f.m.LoadRules(append(f.m.Rules(), fakerules.Rule{Resource: "c", Grade: 1, Count: 3})))
	require.NoError(t, file.Write(f.path, f.m.Kind()))
	data, err := os.ReadFile(f.path)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"resource":"c"`)
	assert.Contains(t, string(data), `"count":3`)
	f.eventuallyInForce("a", "b", "c")
	require.Eventually(t, func() bool { return src.Status().Reads >= 2 }, waitFor, tick)
	assert.NoError(t, src.LastError())

	entries, err := os.ReadDir(f.dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")
}

func TestWriteKeepsModeAndSymlink(t *testing.T) {
	dir := t.TempDir()
	m := fakerules.New("flow")
	require.NoError(t, m.LoadRules([]fakerules.Rule{{Resource: "a", Grade: 1}}))
	target := dir + "/real.json"
	require.NoError(t, os.WriteFile(target, []byte("[]"), 0o600))
	link := dir + "/flow.json"
	require.NoError(t, os.Symlink("real.json", link))
	require.NoError(t, file.Write(link, m.Kind()))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is kept")
	fi, err = os.Stat(target)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	n, err := datasource.LoadFile(link, fakerules.New("flow").Kind(), 0)
	require.NoError(t, err)
	assert.Equal(t, 1, n)

	newFile := dir + "/new.json"
	require.NoError(t, file.Write(newFile, m.Kind()))
	fi, err = os.Stat(newFile)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	m := fakerules.New("flow")
	assert.ErrorContains(t, file.Write(dir, m.Kind()), "is a directory")
	assert.ErrorContains(t, file.Write(dir+"/f.json", nil), "nil kind")
	err := file.Write(dir+"/no/such/dir/f.json", m.Kind())
	assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
}
