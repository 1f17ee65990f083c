package wrappertest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A wrapper of a method without a context opens its call with Enter and
// allocates nothing; one with a context hands the entry's context to the
// method, so its entry is its own: one allocation.
func TestWrappersAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates, and its sync.Pool drops entries")
	}
	ctx := context.Background()
	_, _ = NewCounter(1) // binds the chains, creates the nodes
	_, _ = Plain(ctx, 1)
	assert.EqualValues(t, 0, testing.AllocsPerRun(200, func() {
		if _, err := NewCounter(1); err != nil {
			t.Fatal(err)
		}
	}), "no context")
	assert.EqualValues(t, 0, testing.AllocsPerRun(200, func() {
		_, _ = NewCounter(TracedInput) // a traced business error
	}), "no context, a traced error")
	assert.EqualValues(t, 1, testing.AllocsPerRun(200, func() {
		if _, err := Plain(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}), "with a context")
}
