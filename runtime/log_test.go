package runtime_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

func TestBlocksAreLoggedOncePerResourceRuleAndOriginPerSecond(t *testing.T) {
	runtime.FlushBlockLog() // earlier tests' blocks
	c := clocktest.Install(t)
	logs := logtest.Capture(t)
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
	assert.Empty(t, logs.Lines("resource="+name), "a second is written once it is over")

	c.Advance(time.Second)
	_, _ = runtime.Entry(context.Background(), name)
	lines := logs.Lines("resource=" + name)
	require.Len(t, lines, 2, "a storm of blocks is one line per origin")
	assert.Contains(t, lines[0], "blocks=1000")
	assert.Contains(t, lines[1], "origin=appA")
	assert.Contains(t, lines[1], "blocks=3")

	runtime.FlushBlockLog()
	lines = logs.Lines("resource=" + name)
	require.Len(t, lines, 3)
	assert.Contains(t, lines[2], "blocks=1", "Flush writes the current second")
}

// An attacker varies the origin header on calls that are blocked: 100,000
// distinct origins within one second. The block log writes a bounded
// number of lines and bytes, and its lines count every block.
func TestBlockLogUnderAStormOfOrigins(t *testing.T) {
	runtime.FlushBlockLog()
	c := clocktest.Install(t)
	logs := logtest.Capture(t)
	const resources, origins = 40, 100_000
	names := make([]string, resources)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", t.Name(), i)
		s := newTestSlot(names[i])
		s.block = func(*runtime.Call) bool { return true }
		register(t, names[i], 0, s)
	}
	for i := range origins {
		ctx := runtime.EnterContext(context.Background(), "web", fmt.Sprintf("caller-%d\n", i))
		_, b := runtime.Entry(ctx, names[i%resources])
		require.NotNil(t, b)
	}
	c.Advance(time.Second)
	runtime.FlushBlockLog()

	var lines []string
	for _, l := range logs.Lines("sentinel: blocked") {
		if strings.Contains(l, t.Name()) || strings.Contains(l, "folded resources") {
			lines = append(lines, l)
		}
	}
	bytes := 0
	total := 0
	for _, l := range lines {
		bytes += len(l) + 1
		i := strings.LastIndex(l, "blocks=")
		require.GreaterOrEqual(t, i, 0, l)
		n, err := strconv.Atoi(strings.TrimSpace(l[i+len("blocks="):]))
		require.NoError(t, err, l)
		total += n
	}
	t.Logf("%d blocked calls from %d origins on %d resources: %d lines, %d bytes in the second", origins, origins, resources, len(lines), bytes)
	assert.LessOrEqual(t, len(lines), 2*runtime.DefaultBlockLogLines+1)
	assert.Less(t, bytes, 32<<10)
	assert.Equal(t, origins, total, "the lines count every block")
	for _, l := range lines {
		assert.NotContains(t, l, "caller-1\n", "values are escaped")
	}
}
