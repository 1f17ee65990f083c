package tutorial

import (
	"context"
	"io/fs"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/sentineltest"
)

// The rule file of README's step 4, unchanged.
const flowJSON = `[{"resource": "getOrder", "limitApp": "default", "grade": 1, "count": 20,
  "strategy": 0, "controlBehavior": 0}]`

// README's tutorial, run: 25 calls in one second under a 20 QPS rule get
// 20 orders and 5 ErrBusy answers from the block handler.
func TestTheTutorialLimitsGetOrderTo20ASecond(t *testing.T) {
	sentineltest.Reset(t)
	sentineltest.Clock(t) // the 25 calls fall in one second
	t.Chdir(t.TempDir())
	require.NoError(t, os.Mkdir("rules", 0o755))
	require.NoError(t, os.WriteFile("rules/flow.json", []byte(flowJSON), 0o644))

	ids := make([]int64, 25)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	var orders, busy int
	err := Serve(context.Background(), &OrderService{}, ids, func(o *Order, err error) {
		switch {
		case err == nil:
			orders++
		case assert.ErrorIs(t, err, ErrBusy):
			busy++
		}
	})
	require.NoError(t, err)
	assert.Equal(t, 20, orders)
	assert.Equal(t, 5, busy)
}

// The start-up check: without its rule file the service does not start
// unprotected.
func TestTheTutorialRefusesToStartWithoutItsRules(t *testing.T) {
	sentineltest.Reset(t)
	t.Chdir(t.TempDir())
	called := false
	err := Serve(context.Background(), &OrderService{}, []int64{1}, func(*Order, error) { called = true })
	require.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Contains(t, err.Error(), "flow rules: ")
	assert.False(t, called, "no call is served unprotected")
}
