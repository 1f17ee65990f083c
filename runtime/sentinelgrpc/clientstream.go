package sentinelgrpc

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/sentinelgen/sentinelgen/internal/rpcguard"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// clientStream is an admitted outbound stream: it exits its entry once,
// when the stream ends or the call's context does.
type clientStream struct {
	grpc.ClientStream
	ctx           context.Context // the caller's
	entry         *runtime.SentinelEntry
	cfg           *commonConfig
	serverStreams bool // false: the first response message ends the stream

	exited atomic.Bool
	mu     sync.Mutex // guards stop, which AfterFunc may race to call exit
	stop   func() bool
}

// start makes s, zero (usually in the entry's allocation), the view of
// the admitted stream cs, whose call's context is ctx.
func (s *clientStream) start(cs grpc.ClientStream, ctx context.Context, e *runtime.SentinelEntry, cfg *commonConfig, serverStreams bool) *clientStream {
	s.ClientStream, s.ctx, s.entry, s.cfg, s.serverStreams = cs, ctx, e, cfg, serverStreams
	if ctx.Done() == nil {
		return s // a context that never ends: nothing to watch
	}
	s.mu.Lock()
	// context.AfterFunc starts no goroutine until ctx ends, and none at all
	// once stopped: a stream that ends normally leaves nothing behind.
	s.stop = context.AfterFunc(ctx, func() { s.exit(status.FromContextError(ctx.Err()).Err()) })
	s.mu.Unlock()
	return s
}

// enterStream opens the outbound entry of a stream of method, with the
// zero view of the stream: once the method's resource exists, in one
// allocation. The view is the stream's own and never reused, as the entry
// is.
func (c *commonConfig) enterStream(ctx context.Context, method string) (*runtime.SentinelEntry, *clientStream, *runtime.BlockError) {
	res := rpcguard.Resource(method)
	if res == nil {
		e, b := c.entry(ctx, method, nil, runtime.Outbound)
		if b != nil {
			return nil, nil, b
		}
		return e, &clientStream{}, nil
	}
	var buf [3]runtime.EntryOption
	return runtime.EntryWith[clientStream](res, ctx, c.options(ctx, method, nil, res, runtime.Outbound, &buf)...)
}

// exit ends the entry with the stream's outcome, once; err is what ended
// it (nil or io.EOF for success).
func (s *clientStream) exit(err error) {
	if !s.exited.CompareAndSwap(false, true) {
		return
	}
	s.mu.Lock()
	stop := s.stop
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	s.entry.Exit(runtime.WithError(s.cfg.traced(s.ctx, err)))
}

func (s *clientStream) RecvMsg(m any) error {
	err := remoteBlocked(s.ClientStream.RecvMsg(m))
	if err != nil || !s.serverStreams {
		s.exit(err)
	}
	return err
}

func (s *clientStream) SendMsg(m any) error {
	err := remoteBlocked(s.ClientStream.SendMsg(m))
	// io.EOF means the stream ended on the server's side; RecvMsg tells how.
	if err != nil && !errors.Is(err, io.EOF) {
		s.exit(err)
	}
	return err
}
