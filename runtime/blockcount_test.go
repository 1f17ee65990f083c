package runtime_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

func TestBlockCountByType(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	s := newTestSlot(name)
	s.block = func(*runtime.Call) bool { return true }
	register(t, name, 0, s)

	for range 3 {
		_, b := runtime.Entry(context.Background(), name, runtime.WithBatchCount(2))
		require.NotNil(t, b)
	}
	r := runtime.LookupResource(name)
	assert.EqualValues(t, 6, r.BlockCount(runtime.BlockCustom), "batch counts included")
	assert.EqualValues(t, 0, r.BlockCount(runtime.BlockFlow))
	assert.EqualValues(t, 0, r.BlockCount(runtime.BlockType(200)), "an unknown type has none")
}
