package nethttp

import (
	"io"
	"net/http"
	goruntime "runtime"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// body is an outbound response body that exits its request's entry when
// the call is over: at the first of io.EOF, a read error (recorded as the
// call's error) or Close. The response time so runs to the end of the
// body, and the thread count covers the whole exchange, as a Feign call's
// does.
//
// A read error after the caller gave up (its context canceled or past its
// deadline, see callerGaveUp) is not recorded: the caller ended the call,
// not the upstream.
//
// A body that is neither read to the end nor closed would hold its thread
// count forever (and its connection: net/http requires Close). As a
// backstop, a cleanup exits the entry when the body is garbage-collected,
// and logs a warning naming the resource.
type body struct {
	rc      io.ReadCloser
	e       *runtime.SentinelEntry
	req     *http.Request
	done    atomic.Bool
	cleanup goruntime.Cleanup
}

func newBody(rc io.ReadCloser, e *runtime.SentinelEntry, req *http.Request) *body {
	b := &body{rc: rc, e: e, req: req}
	b.cleanup = goruntime.AddCleanup(b, abandoned, e)
	return b
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil {
		if err == io.EOF {
			b.finish(nil)
		} else {
			b.finish(err)
		}
	}
	return n, err
}

func (b *body) Close() error {
	err := b.rc.Close()
	b.finish(nil)
	return err
}

// finish exits the entry once; Read and Close may race (closing a body
// from another goroutine aborts a read), so the winner alone touches it.
func (b *body) finish(err error) {
	if !b.done.CompareAndSwap(false, true) {
		return
	}
	b.cleanup.Stop()
	if err != nil && !callerGaveUp(b.req) {
		b.e.SetError(err)
	}
	b.e.Exit()
}

func abandoned(e *runtime.SentinelEntry) {
	runtime.Logger().Warn("nethttp: response body was garbage-collected without being closed; exiting its entry",
		"resource", safetext.Name(e.Resource().Name()))
	e.Exit()
}

// callerGaveUp reports whether req's own context is done: the caller
// canceled it, or its deadline (the caller's, or http.Client.Timeout's)
// passed. The error that follows is the caller's doing, not the
// upstream's, and is not recorded on the entry: callers that cancel must
// not open an error breaker on a healthy upstream. The call's response
// time is still counted, so a slow upstream still shows in slow-call
// ratios and response times.
func callerGaveUp(req *http.Request) bool {
	return contextEnded(req.Context())
}
