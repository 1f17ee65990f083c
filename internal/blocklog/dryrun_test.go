package blocklog_test

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/sentinelgen/sentinelgen/internal/blocklog"
)

// Would-be blocks of dry-run rules are keyed apart from blocks, even by
// the same rule, and get lines marked as dry run.
func TestDryRunBlocksHaveLinesOfTheirOwn(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := newAggregator(&c, &now)
	r := &rule{"r"}
	var h, dh blocklog.Hint
	for range 5 {
		a.Add(&h, t0, "res", "flow", r, "", 1)
		a.AddDryRun(&dh, t0, "res", "flow", r, "", 2)
	}
	a.AddDryRun(nil, t0, "res", "flow", r, "appA", 1)
	a.Flush()
	lines := c.lines(t)
	require.Len(t, lines, 3)
	assert.Equal(t, "sentinel: would block (dry run)", lines[0]["msg"], "the busiest first")
	assert.EqualValues(t, 10, lines[0]["blocks"])
	assert.Equal(t, "sentinel: blocked", lines[1]["msg"])
	assert.EqualValues(t, 5, lines[1]["blocks"])
	assert.Equal(t, "sentinel: would block (dry run)", lines[2]["msg"])
	assert.Equal(t, "appA", lines[2]["origin"])
}

// Folded lines carry would-be blocks apart from blocks, and every one of
// either is counted, past the key table too.
func TestDryRunBlocksFoldApart(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := newAggregator(&c, &now)
	a.SetLines(1)
	r := &rule{"r"}
	for i := range blocklog.MaxKeys + 4 {
		o := "o-" + strconv.Itoa(i)
		if i%2 == 0 {
			a.Add(nil, t0, "res", "flow", r, o, 1)
		} else {
			a.AddDryRun(nil, t0, "res", "flow", r, o, 1)
		}
	}
	a.Flush()
	lines := c.lines(t)
	require.Len(t, lines, 2)
	var blocks, would float64
	for _, l := range lines {
		if l["msg"] == "sentinel: would block (dry run)" {
			would += l["blocks"].(float64)
			continue
		}
		blocks += l["blocks"].(float64)
		if d, ok := l["dryRunBlocks"]; ok {
			would += d.(float64)
		}
	}
	total := float64(blocklog.MaxKeys + 4)
	assert.Equal(t, total/2, blocks)
	assert.Equal(t, total/2, would)
}
