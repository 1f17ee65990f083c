package file_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
)

func TestWatchedCombinedFileIsAllOrNothing(t *testing.T) {
	fl, dg := fakerules.New("flow"), fakerules.New("degrade")
	kind := datasource.NewCombined(fl.Kind(), dg.Kind())
	path := filepath.Join(t.TempDir(), "rules.json")
	write := func(s string) { require.NoError(t, os.WriteFile(path, []byte(s), 0o644)) }
	write(`{"flow": [{"resource":"a"}], "degrade": [{"resource":"b"}]}`)
	src, err := file.Watch(context.Background(), path, kind, modes[0].opts...)
	require.NoError(t, err)
	defer src.Close()
	require.NoError(t, src.LastError())
	assert.Equal(t, 2, src.Status().Rules)

	write(`{"flow": [{"resource":"a2"}], "degrade": [{"resource":""}]}`)
	require.Eventually(t, func() bool { return src.LastError() != nil }, waitFor, tick)
	assert.Equal(t, path+`: degrade: rule 0: resource is blank`, src.LastError().Error())
	assert.Equal(t, []string{"a"}, fl.Resources(), "the valid flow section waits for the whole file")
	assert.Equal(t, []string{"b"}, dg.Resources())

	write(`{"flow": [{"resource":"a2"}], "degrade": [{"resource":"b2"}, {"resource":"b3"}]}`)
	require.Eventually(t, func() bool { return src.LastError() == nil }, waitFor, tick)
	assert.Equal(t, []string{"a2"}, fl.Resources())
	assert.Equal(t, []string{"b2", "b3"}, dg.Resources())
	assert.Equal(t, 3, src.Status().Rules)
}
