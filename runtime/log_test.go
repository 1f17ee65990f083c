package runtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBlocksAreLoggedOncePerResourceRuleAndOriginPerSecond(t *testing.T) {
	runtime.FlushBlockLog() // earlier tests' blocks
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
	for range 3 {
		_, b := runtime.Entry(runtime.EnterContext(context.Background(), "web", "appA"), name)
		require.NotNil(t, b)
	}
	assert.Empty(t, logs.lines("resource="+name), "a second is written once it is over")

	c.Advance(time.Second)
	_, _ = runtime.Entry(context.Background(), name)
	lines := logs.lines("resource=" + name)
	require.Len(t, lines, 2, "a storm of blocks is one line per origin")
	assert.Contains(t, lines[0], "blocks=1000")
	assert.Contains(t, lines[1], "origin=appA")
	assert.Contains(t, lines[1], "blocks=3")

	runtime.FlushBlockLog()
	lines = logs.lines("resource=" + name)
	require.Len(t, lines, 3)
	assert.Contains(t, lines[2], "blocks=1", "Flush writes the current second")
}
