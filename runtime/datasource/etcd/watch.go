package etcd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/connectivity"

	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
)

// Source is a watched etcd key. Its methods are safe for concurrent use.
type Source struct {
	client *clientv3.Client
	key    string
	name   string // "etcd:" + key (as a valid label), in errors, events and Status
	cfg    config
	keep   *datasource.Keeper

	cancel context.CancelFunc
	ready  chan struct{}
	done   chan struct{}

	mu sync.Mutex
	// seen is the store revision of the newest read or event applied
	// (after its rules were loaded or refused), and mod the key's mod
	// revision then (0: absent): what Save compares.
	seen, mod int64
	// What Status.Watching says: the last read failed, or the client's
	// connection is not ready.
	readFailed, connDown bool
}

// Watch reads key from etcd as rules of kind, then watches it by revision
// until ctx is done or Close is called.
//
// The first read happens before Watch returns (bounded by WithTimeout);
// its outcome is src.LastError() (nil: loaded). An absent key, a refused
// document or an unreachable server do not make Watch fail: the rules in
// force are kept, and the source keeps trying. err is non-nil for a nil
// client or kind, an empty key, or a ctx already done.
func Watch(ctx context.Context, client *clientv3.Client, key string, kind datasource.Kind, opts ...Option) (*Source, error) {
	switch {
	case client == nil:
		return nil, errors.New("etcd.Watch: nil client")
	case kind == nil:
		return nil, errors.New("etcd.Watch: nil kind")
	case key == "":
		return nil, errors.New("etcd.Watch: empty key")
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
		client: client, key: key, name: "etcd:" + safetext.Label(key), cfg: cfg,
		cancel: cancel, ready: make(chan struct{}), done: make(chan struct{}),
	}
	s.keep = datasource.NewKeeper(datasource.KeeperConfig{
		Name: s.name, Kind: kind, Noun: "etcd rule key", Watching: "etcd watch",
		MaxSize: cfg.maxSize, Subscribers: cfg.listeners, Events: cfg.events,
		Load: cfg.load, Server: "etcd rule source",
	})
	go s.loop(ctx)
	<-s.ready
	return s, nil
}

// loop reads the key, then watches it from the revision after that read.
// The client's watch resumes by itself from the last revision it delivered
// when the connection comes back; when that revision has been compacted
// away meanwhile (or the watch ends for another reason), the key is read
// again and watched from there.
func (s *Source) loop(ctx context.Context) {
	defer close(s.done)
	defer s.keep.SetWatching("closed")
	var mon sync.WaitGroup
	defer mon.Wait()
	mon.Go(func() { s.monitor(ctx) })
	first := true
	for {
		next, ok := s.read(ctx)
		if first {
			close(s.ready)
			first = false
		}
		if ctx.Err() != nil {
			return
		}
		if !ok {
			s.setReadOK(false)
			t := time.NewTimer(s.cfg.retry)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			continue
		}
		s.setReadOK(true)
		s.watch(ctx, next)
		if ctx.Err() != nil {
			return
		}
	}
}

// monitor follows the client's connection, so that Status tells an
// outage while the watch waits for the server to come back (the client
// resumes the watch by itself, without a word to the source).
func (s *Source) monitor(ctx context.Context) {
	conn := s.client.ActiveConnection()
	if conn == nil {
		return
	}
	for {
		st := conn.GetState()
		s.setConnOK(st == connectivity.Ready || st == connectivity.Idle)
		if !conn.WaitForStateChange(ctx, st) {
			return
		}
	}
}

func (s *Source) setReadOK(ok bool) {
	s.mu.Lock()
	s.readFailed = !ok
	s.mu.Unlock()
	s.showWatching()
}

func (s *Source) setConnOK(ok bool) {
	s.mu.Lock()
	s.connDown = !ok
	s.mu.Unlock()
	s.showWatching()
}

func (s *Source) showWatching() {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.readFailed:
		s.keep.Unreachable("etcd unreachable; retrying", errors.New("reading the key failed"))
	case s.connDown:
		s.keep.Unreachable("etcd unreachable; retrying", errors.New("the connection to etcd is down"))
	default:
		s.keep.Reachable("etcd watch")
	}
}

// read gets the key and offers it; next is the revision to watch from.
func (s *Source) read(ctx context.Context) (next int64, ok bool) {
	rctx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
	resp, err := s.client.Get(rctx, s.key)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return 0, false
		}
		s.keep.Offer(nil, &datasource.Error{Name: s.name, Err: fmt.Errorf("cannot read the key from etcd: %w", err)})
		return 0, false
	}
	mod := int64(0)
	if len(resp.Kvs) > 0 {
		mod = resp.Kvs[0].ModRevision
	}
	if len(resp.Kvs) == 0 {
		s.keep.Offer(nil, &datasource.Error{Name: s.name, Err: datasource.ErrMissing})
	} else {
		s.keep.Offer(resp.Kvs[0].Value, nil)
	}
	s.saw(resp.Header.Revision, mod)
	return resp.Header.Revision + 1, true
}

// watch applies the key's changes from revision from on, until the watch
// ends: ctx done, compaction past the revision, or a lost leader.
func (s *Source) watch(ctx context.Context, from int64) {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	for resp := range s.client.Watch(wctx, s.key, clientv3.WithRev(from)) {
		if err := resp.Err(); err != nil {
			if ctx.Err() == nil {
				runtime.Logger().Info("sentinel: etcd watch ended; reading the key again",
					slog.String("path", s.name), slog.Any("error", err))
			}
			return
		}
		for _, ev := range resp.Events {
			switch ev.Type {
			case clientv3.EventTypePut:
				s.keep.Offer(ev.Kv.Value, nil)
				s.saw(ev.Kv.ModRevision, ev.Kv.ModRevision)
			case clientv3.EventTypeDelete:
				s.keep.Offer(nil, &datasource.Error{Name: s.name, Err: datasource.ErrMissing})
				s.saw(ev.Kv.ModRevision, 0)
			}
		}
	}
}

// saw records the key's state at store revision rev, unless a newer one
// is known already (a Save's own write may overtake the watch).
func (s *Source) saw(rev, mod int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rev >= s.seen {
		s.seen, s.mod = rev, mod
	}
}

// Revision is the key's mod revision as the source last saw it (0: the
// key is absent): the revision Save compares against.
func (s *Source) Revision() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mod
}

// LastError is nil after a good load, and the reason of the last refusal
// otherwise (a *datasource.Error: key, rule index, field, why).
func (s *Source) LastError() error { return s.keep.LastError() }

// LastWarnings is the warnings of the last version loaded (nil when it
// had none).
func (s *Source) LastWarnings() []datasource.Warning { return s.keep.LastWarnings() }

// Status reports the source's state. Path is "etcd:" and the key.
func (s *Source) Status() datasource.Status { return s.keep.Status() }

// Subscribe calls fn, on the watcher goroutine, with every later Event.
// fn should return quickly: the next version waits for it. cancel stops
// it.
func (s *Source) Subscribe(fn func(datasource.Event)) (cancel func()) {
	return s.keep.Subscribe(fn)
}

// Close stops watching; the rules in force stay in force, and the client
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
