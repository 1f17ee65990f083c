// Package captest checks the runtime's caps on resources and context names.
// It is its own test binary because filling the caps changes global state
// for every later test.
package captest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
	"github.com/sentinelgen/sentinelgen/runtime/nethttp"
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

	// An attacker's scan: outbound calls to 7,000 distinct URL paths fill
	// the resource table (through the Transport, which names a resource per
	// path). Rules and declarations must keep applying afterwards.
	require.NoError(t, flow.LoadRules([]flow.Rule{
		{Resource: "GET:/api/closed", Grade: flow.GradeQPS, Count: 0},
		{Resource: "^/regex/.*", Regex: true, Grade: flow.GradeQPS, Count: 0},
		{Resource: "write", Grade: flow.GradeQPS, Count: 0.5, Strategy: flow.Relate, RefResource: "read"},
	}))
	defer func() { _ = flow.LoadRules(nil) }()
	declared := runtime.Declare(runtime.ResourceSpec{Name: "declared-early"})

	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer upstream.Close()
	client := &http.Client{Transport: nethttp.Transport(http.DefaultTransport)}
	for i := range runtime.MaxResources + 1000 {
		resp, err := client.Get(fmt.Sprintf("%s/users/%d", upstream.URL, i))
		require.NoError(t, err)
		_ = resp.Body.Close()
	}
	assert.LessOrEqual(t, len(runtime.Resources()), 2*runtime.MaxResources+1, "the table is bounded")

	t.Run("a rule still applies to a name first called past the cap", func(t *testing.T) {
		_, b := runtime.Entry(context.Background(), "GET:/api/closed")
		require.NotNil(t, b, "count 0 blocks every call, table full or not")
		assert.Equal(t, "GET:/api/closed", runtime.LookupResource("GET:/api/closed").Name())
	})
	t.Run("a regex rule still applies past the cap", func(t *testing.T) {
		_, b := runtime.Entry(context.Background(), "/regex/late")
		require.NotNil(t, b)
	})
	t.Run("a Relate rule's refResource is kept past the cap", func(t *testing.T) {
		for range 5 {
			if e, b := runtime.Entry(context.Background(), "read"); b == nil {
				e.Exit()
			}
		}
		require.NotNil(t, runtime.LookupResource("read"), "the rule reads its statistics")
		_, b := runtime.Entry(context.Background(), "write")
		assert.NotNil(t, b, "reads above the count block writes")
	})
	t.Run("names a pattern matches take half the reserved room at most", func(t *testing.T) {
		long := strings.Repeat("x", 5000)
		e, b := runtime.Entry(context.Background(), "/regex/"+long)
		require.Nil(t, b, "a name too long to keep is counted on the overflow resource, which regex rules do not check")
		e.Exit()
		assert.Nil(t, runtime.LookupResource("/regex/"+long), "and is not kept")
		blocked := 0
		for i := range runtime.MaxResources {
			e, b := runtime.Entry(context.Background(), fmt.Sprintf("/regex/%d", i))
			if b != nil {
				blocked++
			} else {
				e.Exit()
			}
		}
		assert.GreaterOrEqual(t, blocked, runtime.MaxResources/2-10, "the pattern's rule applies to the names it may keep")
		assert.Less(t, blocked, runtime.MaxResources, "but not past its half of the reserved room")
		late := runtime.Declare(runtime.ResourceSpec{Name: "declared-after-a-pattern-flood"})
		assert.False(t, late.Overflow(), "declarations still find room")
		_, b = runtime.Entry(context.Background(), "GET:/api/closed")
		assert.NotNil(t, b)
	})
	t.Run("resources declared late are kept", func(t *testing.T) {
		late := runtime.Declare(runtime.ResourceSpec{Name: "declared-late", Traffic: runtime.Inbound})
		assert.False(t, late.Overflow())
		assert.Equal(t, runtime.Inbound, late.Spec().Traffic)
		assert.False(t, declared.Overflow())
	})
	t.Run("further names are counted together, never waved through", func(t *testing.T) {
		runtime.RegisterSlot("blockAll", 0, blockAll{})
		defer runtime.UnregisterSlot("blockAll")
		for range 3 {
			_, b := runtime.Entry(context.Background(), "one-too-many")
			require.NotNil(t, b, "the overflow resource has a chain: slots for every resource still apply")
			assert.Equal(t, runtime.OverflowResourceName, b.Resource())
		}
		assert.Nil(t, runtime.LookupResource("one-too-many"), "and is not kept")
		overflow := runtime.LookupResource(runtime.OverflowResourceName)
		require.NotNil(t, overflow)
		assert.True(t, overflow.Overflow())
		assert.EqualValues(t, 3, overflow.ClusterNode().BlockQPS(runtime.NowMillis()))
		assert.Equal(t, 1, logs.count("resource limit reached"), "one warning")
	})

	t.Run("contexts past MaxContexts are counted together and checked", func(t *testing.T) {
		runtime.RegisterSlot("blockAll", 0, blockAll{})
		defer runtime.UnregisterSlot("blockAll")
		for i := range runtime.MaxContexts + 5 {
			runtime.EnterContext(context.Background(), fmt.Sprintf("ctx-%d", i), "")
		}
		ctx := runtime.EnterContext(context.Background(), "ctx-past-the-cap", "")
		name, _ := runtime.ContextName(ctx)
		assert.Equal(t, "ctx-past-the-cap", name, "the context keeps its name for chain rules")
		_, b := runtime.Entry(ctx, "declared-early")
		require.NotNil(t, b, "a call in a context past the cap is checked")
		_, b = runtime.Entry(context.Background(), "declared-early")
		assert.NotNil(t, b, "the default context still works")
		assert.Equal(t, 1, logs.count("context name limit reached"), "one warning")
		var entrances []string
		for _, e := range runtime.Tree().Children {
			entrances = append(entrances, e.Name)
		}
		assert.Len(t, entrances, runtime.MaxContexts+2, "the named contexts, the default and the overflow")
		assert.Contains(t, entrances, runtime.OverflowContextName)
	})
}
