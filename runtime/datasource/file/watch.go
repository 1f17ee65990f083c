package file

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// Source is a watched rule file. Its methods are safe for concurrent use.
type Source struct {
	path string // as given: errors and events name it
	abs  string
	dir  string
	base string
	kind datasource.Kind
	cfg  config

	stop  chan struct{}
	ready chan struct{}
	done  chan struct{}

	keep *datasource.Keeper // loads each new version; status and subscribers

	// Owned by the watcher goroutine.
	watcher  *fsnotify.Watcher
	watching bool // the directory watch is in place
	// target is the file path resolves to when it is a symbolic link into
	// another directory; that directory is watched too, so edits of the
	// target in place are seen at once rather than at the next poll.
	target    string
	targetDir string
	lastFP    fingerprint
	haveFP    bool
}

// Watch loads the rule file at path as rules of kind, then follows its
// changes until ctx is done or Close is called.
//
// The first load happens before Watch returns; its outcome is
// src.LastError() (nil: loaded). A missing or invalid file does not make
// Watch fail: none of its rules are in force (the log says so), rules
// loaded from elsewhere stay, and the file is picked up when a valid
// version appears. A caller that wants to refuse to start without rules
// checks LastError:
//
//	src, err := file.Watch(ctx, "rules/flow.json", datasource.Flow)
//	if err != nil {
//		return err // a bad path or kind
//	}
//	defer src.Close()
//	if err := src.LastError(); err != nil {
//		return err // the file is missing or refused
//	}
//
// err is non-nil when there is nothing to watch: a nil kind, an empty path,
// a path that is a directory, or a ctx already done.
func Watch(ctx context.Context, path string, kind datasource.Kind, opts ...Option) (*Source, error) {
	if kind == nil {
		return nil, errors.New("file.Watch: nil kind")
	}
	if path == "" {
		return nil, errors.New("file.Watch: empty path")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("file.Watch: %w", err)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("file.Watch: %s is a directory, want a rule file", path)
	}
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	s := &Source{
		path: path, abs: abs, dir: filepath.Dir(abs), base: filepath.Base(abs),
		kind: kind, cfg: cfg,
		stop: make(chan struct{}), ready: make(chan struct{}), done: make(chan struct{}),
	}
	s.keep = datasource.NewKeeper(datasource.KeeperConfig{
		Name: path, Kind: kind, Noun: "rule file", Watching: "poll",
		MaxSize: cfg.maxSize, Subscribers: cfg.listeners, Events: cfg.events,
		Load: cfg.load,
	})
	if cfg.fsnotify {
		w, err := fsnotify.NewWatcher()
		if err != nil {
			runtime.Logger().Warn("sentinel: cannot watch rule file for events; polling it",
				slog.String("path", path), slog.Any("error", err))
		} else {
			s.watcher = w
			s.addWatch()
		}
	}
	go s.loop(ctx)
	<-s.ready
	return s, nil
}

// addWatch watches the file's directory, not the file: a rename over the
// file, an editor's save-by-rename and a ConfigMap's ..data symlink swap
// all replace the directory entry, and a watch on the old inode would go
// deaf. A directory that does not exist yet is retried at each poll.
func (s *Source) addWatch() {
	if err := s.watcher.Add(s.dir); err != nil {
		return
	}
	s.watching = true
	s.setWatching("fsnotify+poll")
}

func (s *Source) setWatching(how string) { s.keep.SetWatching(how) }

func (s *Source) loop(ctx context.Context) {
	defer close(s.done)
	defer s.shutdown()
	s.check(true)
	close(s.ready)

	ticker := time.NewTicker(s.cfg.poll)
	defer ticker.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if s.watcher != nil {
		events, errs = s.watcher.Events, s.watcher.Errors
	}
	var settle *time.Timer
	var settled <-chan time.Time
	force := false // a coalesced event named the file itself
	defer func() {
		if settle != nil {
			settle.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if ev.Name == s.dir && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				s.watching = false // the directory went; re-added at a poll once it is back
				s.setWatching("poll")
			}
			if s.targetDir != "" && ev.Name == s.targetDir && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				s.target, s.targetDir = "", "" // watched again by the next check, if it comes back
				force = true
			}
			if filepath.Base(ev.Name) == s.base || (s.target != "" && ev.Name == s.target) {
				force = true
			}
			// The first event of a burst starts the timer; the rest ride
			// along, so a steady stream still gets read every debounce.
			if settled == nil {
				settle = time.NewTimer(s.cfg.debounce)
				settled = settle.C
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// An event queue overflow loses events: read the file to be sure.
			runtime.Logger().Debug("sentinel: rule file watcher error", slog.String("path", s.path), slog.Any("error", err))
			s.check(true)
		case <-settled:
			settled, settle = nil, nil
			s.check(force)
			force = false
		case <-ticker.C:
			if s.watcher != nil && !s.watching {
				s.addWatch()
			}
			s.check(false)
		}
	}
}

// followTarget watches the directory of the file path resolves to, when
// that is not the directory already watched. A ConfigMap's target directory
// is replaced at every update; fsnotify drops the watch of a removed
// directory by itself, and the next new version adds the new one.
func (s *Source) followTarget() {
	if s.watcher == nil {
		return
	}
	resolved, err := filepath.EvalSymlinks(s.abs)
	if err != nil {
		return
	}
	dir := filepath.Dir(resolved)
	if resolved == s.abs || dir == s.dir {
		s.target, s.targetDir = "", ""
		return
	}
	if dir != s.targetDir {
		if s.targetDir != "" {
			_ = s.watcher.Remove(s.targetDir) // may be gone already
		}
		if err := s.watcher.Add(dir); err != nil {
			s.target, s.targetDir = "", ""
			return
		}
	}
	s.target, s.targetDir = resolved, dir
}

func (s *Source) shutdown() {
	if s.watcher != nil {
		_ = s.watcher.Close()
	}
	s.setWatching("closed")
}

// check reads the file when it may have changed and offers it to the
// Keeper. Unless force, an unchanged size, mtime and identity mean no
// read. A read content (or read error) equal to the last one seen is not
// loaded again, nor reported again.
func (s *Source) check(force bool) {
	fp := stat(s.abs)
	if !force && s.haveFP && fp.same(s.lastFP) {
		return
	}
	s.lastFP, s.haveFP = fp, true
	// Read the absolute path (a later chdir must not change the file),
	// but name the path as given.
	data, err := datasource.ReadFile(s.abs, s.cfg.maxSize)
	if de, ok := err.(*datasource.Error); ok {
		de.Name = s.path
	}
	s.followTarget() // even for unchanged content: the link may point elsewhere now
	s.keep.Offer(data, err)
}

// LastWarnings is the warnings of the last version loaded (nil when it
// had none): what Java accepts and its author should probably fix, and
// the rules a SkipInvalid policy left out.
func (s *Source) LastWarnings() []datasource.Warning { return s.keep.LastWarnings() }

// LastError is nil after a good load, and the reason of the last refusal
// otherwise (a *datasource.Error: file, rule index, field, why).
func (s *Source) LastError() error { return s.keep.LastError() }

// Status reports the source's state.
func (s *Source) Status() datasource.Status { return s.keep.Status() }

// Subscribe calls fn, on the watcher goroutine, with every later Event (the
// first load is over by the time Watch returns; see WithSubscriber). fn
// should return quickly: the next version waits for it. cancel stops it.
func (s *Source) Subscribe(fn func(datasource.Event)) (cancel func()) {
	return s.keep.Subscribe(fn)
}

// Close stops watching; the rules in force stay in force. It is
// idempotent, and returns once the watcher goroutine has exited — except
// when called while that goroutine is loading rules or telling subscribers
// (the caller may be a subscriber or a property listener on it): then it
// returns at once, and the goroutine exits as soon as it is done. Close
// always returns nil; the error is there for io.Closer.
func (s *Source) Close() error {
	s.keep.Close(func() { close(s.stop) }, s.done)
	return nil
}
