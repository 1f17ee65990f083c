package flow_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	runtime.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil))) // blocks are logged at info
	os.Exit(m.Run())
}

// load installs a hand-stepped clock and rules for the test, and clears
// both when it ends.
func load(t *testing.T, rules ...flow.Rule) *clocktest.Clock {
	t.Helper()
	c := clocktest.New()
	restore := runtime.SetClock(c)
	require.NoError(t, flow.LoadRules(rules))
	t.Cleanup(func() {
		_ = flow.LoadRules(nil)
		restore()
	})
	return c
}

// call enters and exits resource once and reports whether it was admitted.
func call(ctx context.Context, resource string) bool {
	e, b := runtime.Entry(ctx, resource)
	if b != nil {
		return false
	}
	e.Exit()
	return true
}

// calls makes n calls and returns how many were admitted.
func calls(ctx context.Context, resource string, n int) int {
	admitted := 0
	for range n {
		if call(ctx, resource) {
			admitted++
		}
	}
	return admitted
}

// from is a context whose calls come from origin.
func from(origin string) context.Context {
	return runtime.EnterContext(context.Background(), "flow-test-"+origin, origin)
}

// frozenClock is a hand clock whose Sleep does not pass time but records
// the wait, so that calls made "at the same instant" see the same now.
type frozenClock struct {
	*clocktest.Clock
	slept chan time.Duration
}

func newFrozenClock() *frozenClock {
	return &frozenClock{Clock: clocktest.New(), slept: make(chan time.Duration, 1024)}
}

func (c *frozenClock) Sleep(d time.Duration) { c.slept <- d }

func (c *frozenClock) lastSleep() time.Duration {
	select {
	case d := <-c.slept:
		return d
	default:
		return 0
	}
}

func qps(resource string, count float64) flow.Rule {
	return flow.Rule{Resource: resource, Grade: flow.GradeQPS, Count: count}
}

// runtimeYield lets other goroutines run while a call is held.
func runtimeYield() { goruntime.Gosched() }
