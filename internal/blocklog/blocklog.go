// Package blocklog aggregates blocked calls for the log as Java Sentinel's
// block log does (LogSlot -> EagleEyeLogUtil -> a StatLogger that writes
// sentinel-block.log every second): one line per resource, block type, rule
// and origin per second, carrying the number of blocks, never one line per
// blocked call.
//
// It is written for the runtime's Log slot, which would call Add on every
// blocked call (and only there: admitted calls never reach it):
//
//	var blockLog = blocklog.New(Logger, clock.Millis)
//
//	func logBlock(c *Call, b *BlockError, now int64) {
//		blockLog.Add(&c.res.blockHint, now, c.res.name, b.blockType.String(), b.rule, c.sc.origin, int64(c.batch))
//	}
//
// A storm of blocks of one resource by one rule costs each blocked call a
// compare-and-swap on the entry its Hint holds; the lock is taken once per
// key and second.
//
// It imports nothing of the runtime, so the runtime can import it.
//
// # Lines
//
//	level=INFO msg="sentinel: blocked" second=2026-11-29T14:30:05Z resource=getOrder type=flow rule=&{...} origin=app-a blocks=42
//
// origin is left out when unknown. A second's lines are written when the
// first block of a later second arrives, or by a timer just after the
// runtime clock's second ends; the timer is armed only while blocks are
// pending and not re-armed when the clock stands still (a test clock), so
// an idle process runs nothing and no goroutine waits between seconds. Flush writes what is pending (at
// shutdown, or in tests).
//
// At most MaxKeys distinct keys are kept per second (Java's maxEntryCount,
// 6000); blocks of further keys are counted and reported in one line,
// "sentinel: block log full", so a storm of distinct origins cannot grow
// memory without bound.
package blocklog

import (
	"context"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// MaxKeys bounds the distinct (resource, type, rule, origin) keys of one
// second.
const MaxKeys = 6000

// Aggregator counts blocks per key and second and writes them to a logger.
type Aggregator struct {
	logger func() *slog.Logger
	now    func() int64 // the runtime clock, Unix ms

	mu      sync.Mutex
	sec     int64 // the second being counted
	entries map[key]*entry
	order   []*entry // first-seen order, so lines come out as blocks came in
	dropped int64
	armed   bool // a tick is scheduled
}

type key struct {
	resource, typ, origin string
	rule                  any // the rule itself when comparable (rule pointers), else its type
}

// entry is one key's count in one second. blocks is added to without the
// lock by callers holding the entry in a Hint; closedBit marks an entry
// whose count was taken (written), after which adds go to a new entry.
type entry struct {
	k      key
	sec    int64
	rule   any
	blocks atomic.Int64
}

const closedBit = 1 << 62

// tryAdd adds n unless the entry was taken.
func (e *entry) tryAdd(n int64) bool {
	for {
		v := e.blocks.Load()
		if v&closedBit != 0 {
			return false
		}
		if e.blocks.CompareAndSwap(v, v+n) {
			return true
		}
	}
}

// Hint remembers, for one caller (the runtime keeps one per resource), the
// entry its last block went to, so that a storm of blocks by the same rule
// adds to it with one compare-and-swap instead of taking the lock. The zero
// Hint is ready to use.
type Hint struct {
	e atomic.Pointer[entry]
}

// New returns an aggregator that writes to logger() and reads the runtime
// clock with now (Unix ms).
func New(logger func() *slog.Logger, now func() int64) *Aggregator {
	return &Aggregator{logger: logger, now: now, entries: make(map[key]*entry)}
}

// Add counts n blocks at time now of resource by a rule of type typ, for a
// call from origin ("" when unknown). h, which may be nil, is the caller's
// Hint.
func (a *Aggregator) Add(h *Hint, now int64, resource, typ string, rule any, origin string, n int64) {
	k := key{resource: resource, typ: typ, origin: origin, rule: rule}
	if rule != nil && !reflect.TypeOf(rule).Comparable() {
		k.rule = reflect.TypeOf(rule) // a rule type that cannot be a map key: one line per type
	}
	sec := now / 1000
	if h != nil {
		if e := h.e.Load(); e != nil && e.sec >= sec && e.k == k && e.tryAdd(n) {
			return
		}
	}

	a.mu.Lock()
	var done []line
	if sec > a.sec {
		done = a.takeLocked()
		a.sec = sec
	}
	// A block of an earlier second (a call that read the clock just before
	// the second turned) counts in the current one.
	if e := a.entries[k]; e != nil {
		e.tryAdd(n) // entries in the map are open: only takeLocked closes them
		if h != nil {
			h.e.Store(e)
		}
	} else if len(a.entries) < MaxKeys {
		e := &entry{k: k, sec: a.sec, rule: rule}
		e.blocks.Store(n)
		a.entries[k] = e
		a.order = append(a.order, e)
		if h != nil {
			h.e.Store(e)
		}
	} else {
		a.dropped += n
	}
	if !a.armed {
		a.armLocked()
	}
	a.mu.Unlock()
	a.write(done)
}

// Flush writes every pending line now.
func (a *Aggregator) Flush() {
	a.mu.Lock()
	done := a.takeLocked()
	a.mu.Unlock()
	a.write(done)
}

// line is one second's count of one key, or the count of blocks past
// MaxKeys (dropped set).
type line struct {
	sec     int64
	k       key
	rule    any
	blocks  int64
	dropped bool
}

// takeLocked closes the pending entries and returns their lines.
func (a *Aggregator) takeLocked() []line {
	if len(a.order) == 0 && a.dropped == 0 {
		return nil
	}
	out := make([]line, 0, len(a.order)+1)
	for _, e := range a.order {
		n := e.blocks.Or(closedBit) &^ closedBit
		out = append(out, line{sec: e.sec, k: e.k, rule: e.rule, blocks: n})
	}
	if a.dropped > 0 {
		out = append(out, line{sec: a.sec, blocks: a.dropped, dropped: true})
	}
	clear(a.entries)
	clear(a.order)
	a.order = a.order[:0]
	a.dropped = 0
	return out
}

func (a *Aggregator) write(lines []line) {
	if len(lines) == 0 {
		return
	}
	l := a.logger()
	for _, ln := range lines {
		second := slog.Time("second", time.UnixMilli(ln.sec*1000).UTC())
		if ln.dropped {
			l.Warn("sentinel: block log full", second, slog.Int("keys", MaxKeys), slog.Int64("blocks", ln.blocks))
			continue
		}
		attrs := []slog.Attr{second, slog.String("resource", ln.k.resource), slog.String("type", ln.k.typ), slog.Any("rule", ln.rule)}
		if ln.k.origin != "" {
			attrs = append(attrs, slog.String("origin", ln.k.origin))
		}
		attrs = append(attrs, slog.Int64("blocks", ln.blocks))
		l.LogAttrs(context.Background(), slog.LevelInfo, "sentinel: blocked", attrs...)
	}
}

// tick writes each second's lines shortly after the runtime clock leaves
// that second, while blocks keep coming. It is a timer, not a goroutine
// that sleeps: between seconds nothing runs. It stops re-arming when
// nothing is pending or the clock did not move (a test clock: the next Add
// or Flush writes the lines).
func (a *Aggregator) tick() {
	a.mu.Lock()
	sec := a.now() / 1000
	var done []line
	if sec > a.sec {
		done = a.takeLocked()
		a.sec = sec
	}
	if len(done) > 0 && (len(a.order) > 0 || a.dropped > 0) {
		a.armLocked() // blocks keep coming
	} else {
		a.armed = false
	}
	a.mu.Unlock()
	a.write(done)
}

// armLocked schedules tick just after the runtime clock's current second
// ends.
func (a *Aggregator) armLocked() {
	a.armed = true
	now := a.now()
	time.AfterFunc(time.Duration(1000-now%1000+10)*time.Millisecond, a.tick)
}
