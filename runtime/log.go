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
// the log.
var blockLog = blocklog.New(Logger, clock.Millis)

// logBlock is the Log slot: it counts a blocked call for the block log.
func logBlock(c *Call, b *BlockError, now int64) {
	blockLog.Add(&c.res.blockHint, now, c.res.name, b.blockType.String(), b.rule, c.sc.origin, int64(c.batch))
}

// FlushBlockLog writes the block log's pending lines now, rather than when
// their second is over: at shutdown, or in tests.
func FlushBlockLog() { blockLog.Flush() }

// maxAttrBytes caps a caller-chosen value (a resource name, an origin) in
// a log line.
const maxAttrBytes = 256

// safeAttr makes a caller-chosen value safe to log: valid UTF-8, control
// characters escaped, at most maxAttrBytes.
func safeAttr(s string) string { return safetext.Log(s, maxAttrBytes) }
