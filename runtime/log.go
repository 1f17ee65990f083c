package runtime

import (
	"log/slog"
	"sync/atomic"

	"github.com/sentinelgen/sentinelgen/internal/blocklog"
	"github.com/sentinelgen/sentinelgen/internal/clock"
	"github.com/sentinelgen/sentinelgen/internal/safetext"
)

var logger atomic.Pointer[slog.Logger]

// SetLogger sets the logger the runtime and its rule packages write to. The
// default is slog.Default() at the time of each log line.
func SetLogger(l *slog.Logger) { logger.Store(l) }

// Logger returns the runtime's logger.
func Logger() *slog.Logger {
	if l := logger.Load(); l != nil {
		return l
	}
	return slog.Default()
}

// warnOnce logs msg the first time its flag is set.
func warnOnce(flag *atomic.Bool, msg string, args ...any) {
	if flag.CompareAndSwap(false, true) {
		Logger().Warn(msg, args...)
	}
}

// blockLog is the Log slot's aggregator: Java's block log, one line per
// resource, block type, rule and origin per second, with the number of
// blocks that line stands for, so a storm of blocked calls cannot flood
// the log; past the busiest keys, lines are folded per resource.
var blockLog = func() *blocklog.Aggregator {
	a := blocklog.New(Logger, clock.Millis)
	a.SetLines(DefaultBlockLogLines)
	return a
}()

// logBlock is the Log slot: it counts a blocked call for the block log.
// Origins past the origin caps are logged as OverflowOrigin, as the node
// tables count them.
func logBlock(c *Call, b *BlockError, now int64) {
	var id any
	if b.shared {
		id = b // every block it stands for has the same resource, type and rule
	}
	blockLog.AddFor(&c.res.blockHint, id, now, c.res.name, b.blockType.String(), b.rule, callOrigin(c), int64(c.batch), c.Stripe())
}

// CountDryRunBlock records that a dry-run rule of type t, rule, would have
// blocked call c, which it admits: the call counts in
// Resource.DryRunBlockCount and in the block log, on lines marked as dry
// run ("sentinel: would block (dry run)"). A rule slot calls it from Check
// where an enforcing rule would return c.Block(t, rule, ...), and then goes
// on as if the rule did not apply to the call.
//
// The call's pass is still counted as a pass, and it costs no allocation.
func CountDryRunBlock(c *Call, t BlockType, rule Rule) {
	if t == 0 || int(t) >= len(blockTypeNames) {
		t = BlockCustom
	}
	n := int64(c.batch)
	c.res.dryRunLine()[t].Add(n)
	blockLog.AddDryRun(&c.res.dryRunHint, c.NowMillis(), c.res.name, t.String(), rule, callOrigin(c), n)
}

// callOrigin is the call's origin as the block log names it: origins past
// the origin caps are logged as OverflowOrigin, as the node tables count
// them.
func callOrigin(c *Call) string {
	origin := c.Origin()
	if origin != "" && c.res.cluster.IsOverflow(c.OriginNode()) {
		origin = OverflowOrigin
	}
	return origin
}

// DefaultBlockLogLines is how many of a second's busiest (resource, block
// type, rule, origin) combinations the block log writes a line for.
const DefaultBlockLogLines = 20

// SetBlockLogLines sets how many of a second's busiest (resource, block
// type, rule, origin) combinations get a line of their own in the block
// log (at least 1; DefaultBlockLogLines unless set). The other blocks of
// the second are folded into one line per resource, at most n of them,
// and one last line for the remaining resources: at most 2n+1 lines a
// second, whose blocks add up to every block.
func SetBlockLogLines(n int) { blockLog.SetLines(n) }

// FlushBlockLog writes the block log's pending lines now, rather than when
// their second is over: at shutdown, or in tests.
func FlushBlockLog() { blockLog.Flush() }

// safeAttr makes a caller-chosen value safe to log: valid UTF-8, control
// characters escaped, at most safetext.MaxName bytes.
func safeAttr(s string) string { return safetext.Name(s) }
