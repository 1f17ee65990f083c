package file_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// admitted reports whether one call to resource is admitted now.
func admitted(resource string) bool {
	e, b := runtime.Entry(context.Background(), resource)
	if b != nil {
		return false
	}
	e.Exit()
	return true
}

// TestWatchedFlowFileGovernsCalls follows a Java flow rule file end to end:
// what the file says is what runtime.Entry does, and a broken file changes
// nothing.
func TestWatchedFlowFileGovernsCalls(t *testing.T) {
	defer runtime.SetClock(clocktest.New())()
	require.NoError(t, flow.LoadRules(nil))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	var heard [][]flow.Rule
	flow.Property().Listen(func(r []flow.Rule) { heard = append(heard, r) })

	dir := t.TempDir()
	path := filepath.Join(dir, "flow.json")
	data, err := os.ReadFile("../testdata/flow.json")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	src, err := file.Watch(context.Background(), path, datasource.Flow, modes[0].opts...)
	require.NoError(t, err)
	defer src.Close()
	require.NoError(t, src.LastError())
	assert.Equal(t, 5, src.Status().Rules)
	assert.Len(t, heard, 1, "the load went through flow.Property()")
	assert.False(t, admitted("reserveStock"), "count 0 blocks every call")

	// A broken version keeps the rule in force.
	require.NoError(t, os.WriteFile(path, []byte(`[{"resource":"reserveStock","count":-1}]`), 0o644))
	require.Eventually(t, func() bool { return src.LastError() != nil }, waitFor, tick)
	assert.Contains(t, src.LastError().Error(), `flow.json: rule 0 (resource "reserveStock"): count -1 is negative`)
	assert.False(t, admitted("reserveStock"))
	assert.Len(t, flow.Rules(), 5)

	// [] clears.
	require.NoError(t, os.WriteFile(path, []byte(`[]`), 0o644))
	require.Eventually(t, func() bool { return src.LastError() == nil && len(flow.Rules()) == 0 }, waitFor, tick)
	assert.True(t, admitted("reserveStock"))

	// Writing back what is in force round-trips through the watcher.
	require.NoError(t, flow.LoadRules([]flow.Rule{{Resource: "reserveStock", Count: 0, Grade: flow.GradeQPS}}))
	require.NoError(t, file.Write(path, datasource.Flow))
	require.Eventually(t, func() bool { return src.Status().Loads == 3 }, waitFor, tick)
	assert.NoError(t, src.LastError())
	assert.False(t, admitted("reserveStock"))
}
