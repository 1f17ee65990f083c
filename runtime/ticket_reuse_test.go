//go:build !race

// The race detector's sync.Pool drops entries at random, so whether an
// entry is reused is asserted only without it: CI runs the Alloc tests
// in a pass of their own without -race.

package runtime_test

import (
	"context"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/stretchr/testify/assert"
)

func TestTicketAllocReusedOnlyAfterItsExit(t *testing.T) {
	r := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	ctx := context.Background()
	a, _ := r.Enter(ctx)
	b, _ := r.Enter(ctx)
	assert.NotSame(t, runtime.TicketEntry(a), runtime.TicketEntry(b), "two open calls, two entries")
	b.Exit()
	c, _ := r.Enter(ctx)
	assert.Same(t, runtime.TicketEntry(b), runtime.TicketEntry(c), "b's entry serves c")
	a.Exit()
	c.Exit()

	d, _ := r.Enter(ctx)
	_ = d.Context() // the context may outlive the call
	d.Exit()
	e, _ := r.Enter(ctx)
	assert.NotSame(t, runtime.TicketEntry(d), runtime.TicketEntry(e), "an entry whose context was taken is never reused")
	e.Exit()
}
