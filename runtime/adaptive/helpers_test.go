package adaptive_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/adaptive"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/stretchr/testify/require"
)

func init() {
	runtime.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil))) // blocks are logged at info
}

func load(t *testing.T, rules ...adaptive.Rule) {
	t.Helper()
	require.NoError(t, adaptive.LoadRules(rules))
	t.Cleanup(func() { _ = adaptive.LoadRules(nil) })
}

func state(t *testing.T, resource string) adaptive.State {
	t.Helper()
	for _, s := range adaptive.States() {
		if s.Resource == resource {
			return s
		}
	}
	t.Fatalf("no limiter for %q", resource)
	return adaptive.State{}
}

// enter admits n calls of resource, failing the test on a block.
func enter(t *testing.T, resource string, n int) []*runtime.SentinelEntry {
	t.Helper()
	out := make([]*runtime.SentinelEntry, n)
	for i := range out {
		e, b := runtime.Entry(context.Background(), resource)
		require.Nil(t, b, "call %d", i)
		out[i] = e
	}
	return out
}

// warm runs the limiter of resource through its probe: calls of rt
// each, MinLimit at a time, on clk.
func warm(t *testing.T, clk *clocktest.Clock, resource string, rt time.Duration) {
	t.Helper()
	for range 400 {
		if !state(t, resource).Probing {
			return
		}
		es := enter(t, resource, int(state(t, resource).Limit))
		clk.Advance(rt)
		for _, e := range es {
			e.Exit()
		}
	}
	t.Fatal("the probe never ended")
}
