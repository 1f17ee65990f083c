package sentinelgrpc

import (
	"context"
	"time"
)

// contextEnded reports whether a call's context is canceled or past its
// deadline: the caller-abort rule (see the package documentation) records
// no error for such a call. The deadline is read as well as Err, because
// the error a deadline causes can arrive a moment before the context's own
// timer marks it done.
func contextEnded(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}
