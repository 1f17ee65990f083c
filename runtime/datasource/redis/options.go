package redis

import (
	"time"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// Option configures Watch.
type Option func(*config)

type config struct {
	maxSize   int64
	timeout   time.Duration
	retry     time.Duration
	ping      time.Duration
	events    chan<- datasource.Event
	listeners []func(datasource.Event)
	load      []datasource.Option
}

func defaults() config {
	return config{maxSize: datasource.DefaultMaxSize, timeout: 5 * time.Second, retry: time.Second, ping: 5 * time.Second}
}

// WithMaxSize sets the size cap of a value (default 4 MiB, as for rule
// files). A larger value is refused, not truncated. n <= 0 keeps the
// default.
func WithMaxSize(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxSize = n
		}
	}
}

// WithTimeout bounds each read and write-back request, the wait for a
// subscription to be confirmed and for a ping to be answered (default
// 5 s).
// d <= 0 keeps the default.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithRetryInterval sets how long the source waits before connecting again
// after losing its connection (default 1 s). d <= 0 keeps the default.
func WithRetryInterval(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.retry = d
		}
	}
}

// WithHealthCheck sets how long the subscription may stay silent before
// the source pings Redis (default 5 s): a connection that died without a
// word (a crashed host, a dropped route) leaves the ping unanswered for
// WithTimeout, and is then replaced. Each such check also reads the key,
// so a message the subscription never heard (one left on a demoted master
// after a Sentinel failover hears nothing) is caught within d. d <= 0
// keeps the default.
func WithHealthCheck(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.ping = d
		}
	}
}

// WithEvents sends every Event, the first read's included, to ch. Sends
// never block: when ch is full the event is dropped (Status still tells
// the state).
func WithEvents(ch chan<- datasource.Event) Option {
	return func(c *config) { c.events = ch }
}

// WithSubscriber calls fn with every Event, the first read's included (a
// Subscribe after Watch returns misses that one).
func WithSubscriber(fn func(datasource.Event)) Option {
	return func(c *config) {
		if fn != nil {
			c.listeners = append(c.listeners, fn)
		}
	}
}

// WithLoadOptions sets how each version is loaded, as every data source
// takes it: WithLoadOptions(datasource.WithPolicy(datasource.SkipInvalid))
// is Java's policy (skip each invalid rule with a warning, load the rest).
func WithLoadOptions(opts ...datasource.Option) Option {
	return func(c *config) { c.load = append(c.load, opts...) }
}
