package file_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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

// A misspelt threshold left unset ({"cuont": 20}: count 0, every call
// blocked) is refused as a malformed file is: the rules in force stay, and
// the error names the field meant.
func TestWatchedFileWithAMisspeltThresholdKeepsTheRulesInForce(t *testing.T) {
	f := newFixture(t)
	f.write(fakerules.Document("a"))
	src := f.watch(modes[0].opts...)
	require.NoError(t, src.LastError())
	f.eventuallyInForce("a")

	f.write(`[{"resource":"b","cuont":20}]`)
	err := f.eventuallyRefused(func(err error) bool { return strings.Contains(err.Error(), `did you mean "count"?`) })
	assert.Contains(t, err.Error(), f.path+`: rule 0 (resource "b"): count is not set, and the rule has "cuont": did you mean "count"?`)
	assert.Equal(t, []string{"a"}, f.m.Resources(), "the rules in force stay")
	f.neverEmpty()
}
