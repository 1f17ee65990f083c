package blocklog_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/sentinelgen/sentinelgen/internal/blocklog"
)

// Blocks added by id count on the lines their key names, as Add's do:
// one line per resource, rule and origin, however the blocks came in.
func TestBlocksAddedByIDCountOnTheirKeysLines(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := newAggregator(&c, &now)
	r := &rule{"a"}
	id := &struct{ _ int }{} // what the runtime passes: its shared BlockError
	var hint blocklog.Hint
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 500 {
				a.AddFor(&hint, id, t0+10, "getOrder", "flow", r, "", 1, g+i) // every stripe, and past them
			}
		})
	}
	wg.Wait()
	a.AddFor(&hint, id, t0+20, "getOrder", "flow", r, "app-x", 1, 0) // another origin: another line
	a.Add(&hint, t0+30, "getOrder", "flow", r, "", 3)                // the same key without id
	a.AddFor(&hint, nil, t0+40, "getOrder", "flow", r, "", 5, 0)     // a nil id is Add
	a.AddFor(&hint, id, t0+1000, "getOrder", "flow", r, "", 1, 0)    // the next second

	lines := c.lines(t)
	require.Len(t, lines, 2, "the first second's lines, one per origin")
	assert.EqualValues(t, 2000+3+5, lines[0]["blocks"])
	assert.NotContains(t, lines[0], "origin")
	assert.EqualValues(t, 1, lines[1]["blocks"])
	assert.Equal(t, "app-x", lines[1]["origin"])

	a.Flush()
	lines = c.lines(t)
	require.Len(t, lines, 3)
	assert.EqualValues(t, 1, lines[2]["blocks"], "a block of a new second goes to a new line")
}
