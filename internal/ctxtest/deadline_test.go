package ctxtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/ctxtest"
)

func TestDeadlinePassesWhenTheTestSays(t *testing.T) {
	ctx, pass := ctxtest.Deadline()
	child, cancel := context.WithCancel(ctx)
	defer cancel()

	d, ok := ctx.Deadline()
	require.True(t, ok)
	assert.Greater(t, time.Until(d), 30*time.Minute, "nothing below acts on the deadline before it passes")
	assert.NoError(t, ctx.Err())
	select {
	case <-ctx.Done():
		t.Fatal("done before it passed")
	default:
	}

	pass()
	pass() // a second time changes nothing
	<-ctx.Done()
	<-child.Done()
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	assert.ErrorIs(t, context.Cause(ctx), context.DeadlineExceeded)
	assert.ErrorIs(t, child.Err(), context.DeadlineExceeded, "a derived context ends as a real deadline's does")
}
