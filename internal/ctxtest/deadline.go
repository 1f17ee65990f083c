// Package ctxtest provides a caller's context whose deadline passes when a
// test says so. A test that gives a call a short real timeout races the
// scheduler: on a loaded machine the timer can fire before the call has
// reached the code under test, and the test then checks something else
// than it meant to, or fails.
package ctxtest

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// farOff is the deadline a Deadline context reports until it passes: far
// enough that nothing below it (a dialer, a gRPC client's grpc-timeout)
// acts on it during a test.
const farOff = time.Hour

// Deadline returns a context with a deadline that passes when pass is
// called: from then on Done is closed and Err, and Cause, return
// context.DeadlineExceeded, as for a context whose timer fired. Until then
// Deadline reports one an hour away. It carries no values. pass may be
// called more than once.
func Deadline() (ctx context.Context, pass func()) {
	c := &deadline{at: time.Now().Add(farOff), done: make(chan struct{})}
	return c, c.pass
}

type deadline struct {
	at     time.Time
	done   chan struct{}
	passed atomic.Bool
	once   sync.Once
}

func (c *deadline) pass() {
	c.once.Do(func() {
		c.passed.Store(true) // before done closes: whoever sees Done sees Err
		close(c.done)
	})
}

func (c *deadline) Deadline() (time.Time, bool) { return c.at, true }
func (c *deadline) Done() <-chan struct{}       { return c.done }
func (c *deadline) Value(any) any               { return nil }
func (c *deadline) String() string              { return "ctxtest.Deadline" }

func (c *deadline) Err() error {
	if c.passed.Load() {
		return context.DeadlineExceeded
	}
	return nil
}
