package nethttp

import (
	"context"

	"github.com/sentinelgen/sentinelgen/internal/web"
	"github.com/sentinelgen/sentinelgen/runtime"
)

// StatusError is the error recorded on an entry whose response status
// WithErrorStatus counts as an error (5xx by default). Its Code field is
// the status; the web framework adapters record the same type.
type StatusError = web.StatusError

// PanicError is the error recorded on an entry whose handler panicked. The
// panic itself goes on after the entry exits. Its Value field is what the
// handler panicked with; Unwrap returns it when it is an error. The web
// framework adapters record the same type.
type PanicError = web.PanicError

func statusError(code int) *StatusError { return web.StatusErrorOf(code) }

func needsArgs(res *runtime.Resource, name string) bool { return web.NeedsArgs(res, name) }

func contextEnded(ctx context.Context) bool { return web.ContextEnded(ctx) }

const resourceType = runtime.Web
