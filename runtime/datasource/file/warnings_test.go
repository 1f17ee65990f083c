package file_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/internal/logtest"
	"github.com/sentinelgen/sentinelgen/runtime/datasource"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/file"
	"github.com/sentinelgen/sentinelgen/runtime/datasource/internal/fakerules"
	"github.com/sentinelgen/sentinelgen/runtime/flow"
)

// A file written as Java's parsers read it loads; its warnings are on the
// source (LastWarnings, Status, events) and logged once per version.
func TestWatchedFileWarnings(t *testing.T) {
	log := logtest.Capture(t)
	f := newFixture(t)
	f.write("// order service\n[{\"resource\": \"a\", \"count\": \"10\"}]")
	events := make(chan datasource.Event, 10)
	src := f.watch(append(modes[0].opts, file.WithEvents(events))...)
	require.NoError(t, src.LastError())
	f.eventuallyInForce("a")
	ws := src.LastWarnings()
	require.Len(t, ws, 2)
	assert.Equal(t, f.path+":1:1: warning: a comment: JSON has no comments; fastjson skips them (so does this runtime), Jackson refuses the document", ws[0].String())
	assert.Contains(t, ws[1].String(), `count "10" is a quoted number; read as 10`)
	assert.Equal(t, ws, src.Status().Warnings)
	ev := <-events
	assert.Equal(t, ws, ev.Warnings)
	assert.Equal(t, 1, log.Count("rules loaded with warnings"))

	// A clean version clears them; a refused one keeps the last good
	// version's warnings next to its error.
	f.write(fakerules.Document("b"))
	f.eventuallyInForce("b")
	assert.Empty(t, src.LastWarnings())
	f.write(`[{"resource":"c","count":-1}]`)
	f.eventuallyRefused(func(error) bool { return true })
	assert.Empty(t, src.LastWarnings())
	assert.Equal(t, 1, log.Count("rules loaded with warnings"), "logged once per version")
}

// file.WithLoadOptions passes a data source option, here Java's policy.
func TestWatchWithJavasPolicy(t *testing.T) {
	require.NoError(t, flow.LoadRules(nil))
	t.Cleanup(func() { _ = flow.LoadRules(nil) })
	path := filepath.Join(t.TempDir(), "flow.json")
	require.NoError(t, os.WriteFile(path, []byte(`[{"resource":"ok","count":1},{"resource":"bad","count":-1}]`), 0o644))

	src, err := file.Watch(context.Background(), path, datasource.Flow,
		append(modes[0].opts, file.WithLoadOptions(datasource.WithPolicy(datasource.SkipInvalid)))...)
	require.NoError(t, err)
	defer src.Close()
	require.NoError(t, src.LastError())
	assert.Equal(t, 1, src.Status().Rules)
	require.Len(t, flow.Rules(), 1)
	assert.Equal(t, "ok", flow.Rules()[0].Resource)
	require.Len(t, src.LastWarnings(), 1)
	assert.Contains(t, src.LastWarnings()[0].String(), `rule 1 (resource "bad"): warning: skipped, as Java skips a rule its validator refuses: count -1 is negative`)
}
