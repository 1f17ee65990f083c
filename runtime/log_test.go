package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBlocksAreLoggedAtMostOncePerResourcePerSecond(t *testing.T) {
	c := handClock(t)
	logs := captureLog(t)
	name := t.Name()
	s := newTestSlot(name)
	s.block = func(*runtime.Call) bool { return true }
	register(t, name, 0, s)

	for range 1000 {
		_, b := runtime.Entry(context.Background(), name)
		require.NotNil(t, b)
	}
	lines := logs.lines("sentinel: blocked")
	require.Len(t, lines, 1, "a storm of blocks is one line")
	assert.Contains(t, lines[0], "blocks=1")

	c.Advance(time.Second)
	_, _ = runtime.Entry(context.Background(), name)
	lines = logs.lines("sentinel: blocked")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[1], "blocks=1000", "the next line counts the blocks since the last")
}
