package runtime

import (
	"log/slog"
	"sync/atomic"
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

// logBlock is the Log slot: it reports blocks through slog, at most one line
// per resource per second, with the number of blocks that line stands for,
// so a storm of blocked calls cannot flood the log.
func logBlock(r *Resource, b *BlockError, now int64) {
	sec := now / 1000
	r.blocksSinceLog.Add(1)
	last := r.lastBlockLogSec.Load()
	if last == sec || !r.lastBlockLogSec.CompareAndSwap(last, sec) {
		return
	}
	n := r.blocksSinceLog.Swap(0)
	Logger().Info("sentinel: blocked",
		slog.String("resource", r.name),
		slog.String("type", b.blockType.String()),
		slog.Any("rule", b.rule),
		slog.Int64("blocks", n))
}
