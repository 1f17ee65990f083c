package web

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// The caller-abort rule: no caller can open a breaker for other callers by
// choosing its own deadline or hanging up. What ends a call because its
// caller's context ended — canceled, or past its deadline, whoever set it —
// is not recorded as the resource's error; the call's response time still
// is, so slow-call-ratio breakers and response times see a slow resource.

// ContextEnded reports whether ctx is canceled or past its deadline. The
// deadline is read as well as Err, because an error that a deadline caused
// can arrive a moment before the context's own timer marks it done.
func ContextEnded(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// callerAborted reports whether a handler's panic p, in a request whose
// context is ctx, is the end of an abandoned or deliberately aborted
// response rather than the route's failure: http.ErrAbortHandler (net/http's "abort this response", which
// httputil.ReverseProxy raises when a client hangs up mid-body, and which
// the server itself does not log), or any panic once the request's context
// has ended (the client hung up, or the server closed the connection).
func callerAborted(ctx context.Context, p any) bool {
	if err, ok := p.(error); ok && errors.Is(err, http.ErrAbortHandler) {
		return true
	}
	return ContextEnded(ctx)
}
