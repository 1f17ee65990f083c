// Package captest checks the runtime's caps on resources and context names.
// It is its own test binary because filling the caps changes global state
// for every later test.
package captest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) count(sub string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Count(s.b.String(), sub)
}

type blockAll struct{}

func (blockAll) Bind(*runtime.Resource) runtime.Checker { return blockAll{} }
func (blockAll) Check(c *runtime.Call) *runtime.BlockError {
	return c.Block(runtime.BlockCustom, nil, nil)
}
func (blockAll) Exit(*runtime.Call) {}

// logs outlives a test run, so that `go test -count N` still sees the
// warnings that were logged once per process.
var logs = &syncBuffer{}

func TestCaps(t *testing.T) {
	defer runtime.SetClock(clocktest.New())()
	runtime.SetLogger(slog.New(slog.NewTextHandler(logs, nil)))
	defer runtime.SetLogger(slog.New(slog.DiscardHandler))

	t.Run("resources past MaxResources pass unchecked", func(t *testing.T) {
		// The default context's entrance already exists; fill the resource cap.
		for i := len(runtime.Resources()); i < runtime.MaxResources; i++ {
			runtime.Declare(runtime.ResourceSpec{Name: fmt.Sprintf("res-%d", i)})
		}
		require.Len(t, runtime.Resources(), runtime.MaxResources)
		runtime.RegisterSlot("blockAll", 0, blockAll{})
		defer runtime.UnregisterSlot("blockAll")

		_, b := runtime.Entry(context.Background(), "res-1")
		assert.NotNil(t, b, "resources under the cap are checked")

		for range 3 {
			e, b := runtime.Entry(context.Background(), "one-too-many")
			require.Nil(t, b, "past the cap a call passes unchecked, as Java's null chain")
			e.Exit()
		}
		assert.Nil(t, runtime.LookupResource("one-too-many"), "and is not kept")
		r := runtime.Declare(runtime.ResourceSpec{Name: "declared-too-late"})
		assert.Nil(t, r.ClusterNode())
		assert.False(t, r.NeedsArgs())
		e, b := r.Entry(context.Background())
		require.Nil(t, b)
		e.Exit()
		assert.Equal(t, 1, logs.count("resource limit reached"), "one warning")
	})

	t.Run("contexts past MaxContexts pass unchecked", func(t *testing.T) {
		runtime.RegisterSlot("blockAll", 0, blockAll{})
		defer runtime.UnregisterSlot("blockAll")
		for i := range runtime.MaxContexts + 5 {
			runtime.EnterContext(context.Background(), fmt.Sprintf("ctx-%d", i), "")
		}
		ctx := runtime.EnterContext(context.Background(), "ctx-past-the-cap", "")
		e, b := runtime.Entry(ctx, "res-2")
		require.Nil(t, b, "a call in a context past the cap passes unchecked")
		e.Exit()
		_, b = runtime.Entry(context.Background(), "res-2")
		assert.NotNil(t, b, "the default context still works")
		assert.Equal(t, 1, logs.count("context name limit reached"), "one warning")
	})
}
