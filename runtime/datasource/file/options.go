package file

import (
	"time"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// Option configures Watch.
type Option func(*config)

type config struct {
	maxSize   int64
	poll      time.Duration
	debounce  time.Duration
	fsnotify  bool
	events    chan<- datasource.Event
	listeners []func(datasource.Event)
	load      []datasource.Option
}

func defaults() config {
	return config{
		maxSize:  datasource.DefaultMaxSize,
		poll:     time.Second,
		debounce: 50 * time.Millisecond,
		fsnotify: true,
	}
}

// WithMaxSize sets the size cap (default 4 MiB, Java's MAX_SIZE). A larger
// file is refused, not truncated. n <= 0 keeps the default.
func WithMaxSize(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxSize = n
		}
	}
}

// WithPollInterval sets how often the file is also polled (mtime, size,
// identity; content hash when they change): the only way changes are seen
// when fsnotify cannot watch the directory, and a safety net otherwise
// (default 1 s). d <= 0 keeps the default.
func WithPollInterval(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.poll = d
		}
	}
}

// WithDebounce sets how long after the first of a burst of file system
// events the file is read (default 50 ms), so that an editor's
// write-rename-chmod or a ConfigMap swap is read once. d <= 0 keeps the
// default.
func WithDebounce(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.debounce = d
		}
	}
}

// WithoutFSNotify watches by polling only (network file systems, where
// inotify sees nothing of other hosts' writes).
func WithoutFSNotify() Option {
	return func(c *config) { c.fsnotify = false }
}

// WithEvents sends every Event, the first load's included, to ch. Sends
// never block: when ch is full the event is dropped (Status still tells
// the state), so a slow reader cannot hold rules back.
func WithEvents(ch chan<- datasource.Event) Option {
	return func(c *config) { c.events = ch }
}

// WithSubscriber calls fn with every Event, the first load's included (a
// Subscribe after Watch returns misses that one).
func WithSubscriber(fn func(datasource.Event)) Option {
	return func(c *config) {
		if fn != nil {
			c.listeners = append(c.listeners, fn)
		}
	}
}

// WithLoadOptions sets how each version is loaded, as every data source
// takes it: datasource.WithPolicy(datasource.SkipInvalid) loads the valid
// rules of a file that holds invalid ones, as Java does, with a warning
// for each rule left out.
func WithLoadOptions(opts ...datasource.Option) Option {
	return func(c *config) { c.load = append(c.load, opts...) }
}
