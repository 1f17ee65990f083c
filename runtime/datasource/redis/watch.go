package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/sentinelgen/sentinelgen/internal/redislog"
	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// Source is a Redis rule key and its channel. Its methods are safe for
// concurrent use.
type Source struct {
	client  redis.UniversalClient
	key     string
	channel string
	name    string // "redis:" + key (as a valid label), in errors, events and Status
	cfg     config
	keep    *datasource.Keeper

	cancel context.CancelFunc
	ready  chan struct{}
	done   chan struct{}

	psMu     sync.Mutex
	ps       *redis.PubSub // replaced when a connection goes silent
	psClosed bool
}

// Watch subscribes to channel, reads key as rules of kind, then loads every
// message on channel as the new document, until ctx is done or Close is
// called. After every reconnection the key is read again: messages sent
// while the subscription was down are lost (pub/sub keeps nothing), the
// key has the last document.
//
// The subscription is confirmed before the key is read, so a document
// published between the two is not missed. The first read happens before
// Watch returns (bounded by WithTimeout); its outcome is src.LastError()
// (nil: loaded). An absent key, a refused document or an unreachable
// server do not make Watch fail: none of the key's rules are in force
// (the log says so), rules from elsewhere stay, and the source keeps
// trying. err is non-nil for a nil client or kind, an empty
// key or channel, or a ctx already done.
func Watch(ctx context.Context, client redis.UniversalClient, key, channel string, kind datasource.Kind, opts ...Option) (*Source, error) {
	switch {
	case client == nil:
		return nil, errors.New("redis.Watch: nil client")
	case kind == nil:
		return nil, errors.New("redis.Watch: nil kind")
	case key == "":
		return nil, errors.New("redis.Watch: empty key")
	case channel == "":
		return nil, errors.New("redis.Watch: empty channel")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Source{
		client: client, key: key, channel: channel, name: "redis:" + safetext.Label(key), cfg: cfg,
		cancel: cancel, ready: make(chan struct{}), done: make(chan struct{}),
	}
	s.keep = datasource.NewKeeper(datasource.KeeperConfig{
		Name: s.name, Kind: kind, Noun: "redis rule key", Watching: "redis subscribe",
		MaxSize: cfg.maxSize, Subscribers: cfg.listeners, Events: cfg.events,
		Load: cfg.load, Server: "redis rule source",
	})
	s.ps = client.Subscribe(ctx, channel) // a failure here is retried by the first receive
	go s.loop(ctx)
	<-s.ready
	return s, nil
}

func (s *Source) loop(ctx context.Context) {
	defer close(s.done)
	defer s.keep.SetWatching("closed")
	// Closing the subscription is what wakes a receive blocked on the
	// connection.
	stop := context.AfterFunc(ctx, s.closeSub)
	defer func() {
		stop()
		s.closeSub()
	}()

	s.first(ctx)
	close(s.ready)
	// awaiting: a ping or a new subscription is waiting for its answer,
	// which gets WithTimeout rather than the health check's interval.
	awaiting := false
	for ctx.Err() == nil {
		wait := s.cfg.ping
		if awaiting {
			wait = s.cfg.timeout
		}
		msg, err := s.sub().ReceiveTimeout(ctx, wait)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if isTimeout(err) {
				if awaiting {
					// No answer: the connection died without a word (a
					// crashed host, a dropped route). Start over on a new
					// one, whose subscription must be confirmed in time.
					s.keep.Unreachable("redis unreachable; retrying", fmt.Errorf("no answer to a ping within %v", s.cfg.timeout))
					s.resubscribe(ctx)
					continue
				}
				// Silence: ask. The answer, or a failed write, tells. The
				// key is read too: pub/sub keeps nothing for a subscription
				// that hears nothing, as one left on a demoted master after
				// a Sentinel failover does (go-redis does not move a
				// subscription), so a lost message is caught within the
				// health check's interval.
				s.read(ctx)
				_ = s.sub().Ping(ctx)
				awaiting = true
				continue
			}
			awaiting = false
			s.keep.Unreachable("redis unreachable; retrying", err)
			t := time.NewTimer(s.cfg.retry)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			continue
		}
		awaiting = false
		s.handle(ctx, msg)
	}
}

func (s *Source) sub() *redis.PubSub {
	s.psMu.Lock()
	defer s.psMu.Unlock()
	return s.ps
}

// resubscribe replaces the subscription and its connection.
func (s *Source) resubscribe(ctx context.Context) {
	s.psMu.Lock()
	defer s.psMu.Unlock()
	if s.psClosed {
		return
	}
	_ = s.ps.Close()
	s.ps = s.client.Subscribe(ctx, s.channel)
}

func (s *Source) closeSub() {
	s.psMu.Lock()
	defer s.psMu.Unlock()
	s.psClosed = true
	_ = s.ps.Close()
}

// first waits for the subscription and reads the key, or reports why it
// could not.
func (s *Source) first(ctx context.Context) {
	deadline := time.Now().Add(s.cfg.timeout)
	for {
		wait := time.Until(deadline)
		if wait <= 0 {
			err := fmt.Errorf("no subscription to redis channel %q within %v", s.channel, s.cfg.timeout)
			s.keep.Unreachable("redis unreachable; retrying", err)
			s.keep.Offer(nil, &datasource.Error{Name: s.name, Err: err})
			return
		}
		msg, err := s.sub().ReceiveTimeout(ctx, wait)
		if err != nil {
			if ctx.Err() == nil {
				s.keep.Unreachable("redis unreachable; retrying", err)
				s.keep.Offer(nil, &datasource.Error{Name: s.name, Err: fmt.Errorf("cannot subscribe to redis channel %q: %w", s.channel, err)})
			}
			return
		}
		s.handle(ctx, msg)
		if _, ok := msg.(*redis.Subscription); ok {
			return
		}
	}
}

func (s *Source) handle(ctx context.Context, msg any) {
	switch m := msg.(type) {
	case *redis.Subscription:
		if m.Kind == "subscribe" && m.Channel == s.channel {
			// Subscribed, at start or after a reconnection: what was
			// published meanwhile is lost, the key holds the last document.
			s.keep.Reachable("redis subscribe")
			s.read(ctx)
		}
	case *redis.Message:
		if m.Channel != s.channel {
			return
		}
		if n := int64(len(m.Payload)); n > s.cfg.maxSize {
			// go-redis has read it already; Redis itself cuts off a
			// subscriber sent more than its client-output-buffer-limit
			// for pubsub (32 MiB by default), and the key is then read
			// again, bounded.
			s.keep.Offer(nil, &datasource.Error{Name: s.name, Err: fmt.Errorf("a message on redis channel %q %w: %d bytes, over the %d-byte cap; refused (WithMaxSize raises the cap)",
				s.channel, datasource.ErrTooLarge, n, s.cfg.maxSize)})
			return
		}
		s.keep.Offer([]byte(m.Payload), nil)
	}
}

// read gets the key and offers it. The read is bounded: one MULTI/EXEC
// asks whether the key exists, for its first maxSize+1 bytes and for its
// length, so a value over the cap is refused without crossing the network
// (a value STRLEN checked and GET then read could have grown in between;
// inside MULTI nothing runs between them).
func (s *Source) read(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
	var exists, size *redis.IntCmd
	var head *redis.StringCmd
	_, err := s.client.TxPipelined(rctx, func(p redis.Pipeliner) error {
		exists = p.Exists(rctx, s.key)
		head = p.GetRange(rctx, s.key, 0, s.cfg.maxSize) // at most maxSize+1 bytes
		size = p.StrLen(rctx, s.key)
		return nil
	})
	cancel()
	switch {
	case ctx.Err() != nil:
	case err != nil:
		s.keep.Offer(nil, &datasource.Error{Name: s.name, Err: fmt.Errorf("cannot read redis key %q: %w", s.key, err)})
	case exists.Val() == 0:
		s.keep.Offer(nil, &datasource.Error{Name: s.name, Err: datasource.ErrMissing})
	case size.Val() > s.cfg.maxSize:
		s.keep.Offer(nil, &datasource.Error{Name: s.name, Err: fmt.Errorf("redis key %q %w: %d bytes, over the %d-byte cap; refused unread (WithMaxSize raises the cap)",
			s.key, datasource.ErrTooLarge, size.Val(), s.cfg.maxSize)})
	default:
		s.keep.Offer([]byte(head.Val()), nil)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// LastError is nil after a good load, and the reason of the last refusal
// otherwise (a *datasource.Error: key, rule index, field, why).
func (s *Source) LastError() error { return s.keep.LastError() }

// LastWarnings is the warnings of the last version loaded (nil when it
// had none).
func (s *Source) LastWarnings() []datasource.Warning { return s.keep.LastWarnings() }

// Status reports the source's state. Path is "redis:" and the key.
func (s *Source) Status() datasource.Status { return s.keep.Status() }

// Subscribe calls fn, on the watcher goroutine, with every later Event.
// fn should return quickly: the next version waits for it. cancel stops
// it.
func (s *Source) Subscribe(fn func(datasource.Event)) (cancel func()) {
	return s.keep.Subscribe(fn)
}

// Close unsubscribes; the rules in force stay in force, and the client
// stays open (it is the caller's). It is idempotent, and returns once the
// watcher goroutine has exited, except when called while that goroutine
// is loading rules or telling subscribers (the caller may be a subscriber
// or a property listener on it): then it returns at once, and the
// goroutine exits as soon as it is done. Close
// always returns nil; the error is there for io.Closer.
func (s *Source) Close() error {
	s.keep.Close(s.cancel, s.done)
	return nil
}

// go-redis's own lines (failed dials while Redis is down) go through the
// runtime's logger.
func init() { redislog.Install() }
