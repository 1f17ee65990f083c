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
//	level=INFO msg="sentinel: blocked" second=2026-11-29T14:30:05Z resource=getOrder type=flow rule="{resource=getOrder ...}" origin=app-a blocks=42
//	level=INFO msg="sentinel: blocked, folded" second=2026-11-29T14:30:05Z resource=getOrder combinations=5432 origins=5432 blocks=81210
//	level=INFO msg="sentinel: blocked, folded resources" second=2026-11-29T14:30:05Z resources=310 blocks=9120
//	level=INFO msg="sentinel: would block (dry run)" second=2026-11-29T14:30:05Z resource=getOrder type=flow rule="{resource=getOrder ...}" blocks=7
//
// Would-be blocks of dry-run rules (AddDryRun: calls the rule admitted)
// are keyed apart from blocks and get lines of their own, marked as dry
// run; folded lines carry them as dryRunBlocks, apart from blocks.
//
// origin is left out when unknown. A second's lines are written when the
// first block of a later second arrives, or by a timer just after the
// runtime clock's second ends; the timer is armed only while blocks are
// pending and not re-armed when the clock stands still (a test clock), so
// an idle process runs nothing and no goroutine waits between seconds.
// Flush writes what is pending (at shutdown, or in tests).
//
// # Bounded, whatever callers send
//
// Callers choose origins, and resource names may come from URL paths, so
// a storm of distinct values must neither grow memory nor flood the log.
// Per second:
//
//   - at most MaxKeys distinct keys are counted apart; blocks of further
//     keys are still counted, per resource;
//   - the Lines busiest keys get a line each ("sentinel: blocked");
//   - every other block is folded into one line per resource ("sentinel:
//     blocked, folded"), busiest first, at most Lines of them, and the
//     resources past that into one last line ("sentinel: blocked, folded
//     resources").
//
// So a second writes at most 2*Lines+1 lines, and the lines' blocks always
// add up to every block of the second. Values are written valid UTF-8,
// control characters escaped, and cut to a few hundred bytes, so a line
// can neither be forged across lines nor blown up by a long origin.
package blocklog

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sentinelgen/sentinelgen/internal/safetext"
	"github.com/sentinelgen/sentinelgen/runtime/stat"
)

// MaxKeys bounds the distinct (resource, type, rule, origin) keys of one
// second.
const MaxKeys = 6000

// DefaultLines is the number of busiest keys that get a line of their own
// each second, unless SetLines says otherwise.
const DefaultLines = 20

// The most bytes a value takes in a line.
const (
	maxNameBytes = 200
	maxRuleBytes = 400
)

// Aggregator counts blocks per key and second and writes them to a logger.
type Aggregator struct {
	logger func() *slog.Logger
	now    func() int64 // the runtime clock, Unix ms

	lines atomic.Int64 // see SetLines

	mu      sync.Mutex
	sec     int64 // the second being counted
	entries map[key]*entry
	order   []*entry // first-seen order, so lines come out as blocks came in
	// dropped counts, per resource and dry run or not, the blocks of keys
	// past MaxKeys.
	dropped map[dropKey]int64
	armed   bool // a tick is scheduled
}

type dropKey struct {
	resource string
	dryRun   bool
}

type key struct {
	resource, typ, origin string
	rule                  any  // the rule itself when comparable (rule pointers), else its type
	dryRun                bool // a dry-run rule's would-be block: a line of its own
}

// entry is one key's count in one second. blocks is added to without the
// lock by callers holding the entry in a Hint; closedBit marks an entry
// whose count was taken (written), after which adds go to a new entry.
//
// The count is striped by processor, a cache line each, apart from the
// fields callers compare: a storm of blocks on both cores would otherwise
// bounce one line between them on every block. Each stripe is closed on
// its own when the count is taken; an add lands in a stripe before its
// close, and is counted, or fails and goes to the next entry.
type entry struct {
	k      key
	sec    int64
	rule   any
	id     any           // AddFor's id of the block that made the entry, if any
	blocks []stripeCount // stat.Stripes() of them
}

type stripeCount struct {
	v atomic.Int64
	_ [56]byte
}

const closedBit = 1 << 62

func newEntry(k key, sec int64, rule, id any) *entry {
	return &entry{k: k, sec: sec, rule: rule, id: id, blocks: make([]stripeCount, stat.Stripes())}
}

// tryAdd adds n on stripe s unless the entry was taken.
func (e *entry) tryAdd(n int64, s int) bool {
	c := &e.blocks[s&(len(e.blocks)-1)].v
	for {
		v := c.Load()
		if v&closedBit != 0 {
			return false
		}
		if c.CompareAndSwap(v, v+n) {
			return true
		}
	}
}

// take closes the entry and returns its count.
func (e *entry) take() int64 {
	var n int64
	for i := range e.blocks {
		n += e.blocks[i].v.Or(closedBit) &^ closedBit
	}
	return n
}

// Hint remembers, for one caller (the runtime keeps one per resource), the
// entry its last block went to, so that a storm of blocks by the same rule
// adds to it with one compare-and-swap instead of taking the lock. The zero
// Hint is ready to use.
type Hint struct {
	e atomic.Pointer[entry]
}

// Last is the key of the block the Hint last went to: its type and rule
// as Add was given them, and the Unix second it was counted in; ok is
// false before the first. It is what a page shows as the rule that
// blocked last, read without cost to the blocked path, which keeps the
// Hint anyway. Past MaxKeys distinct keys in a second, the blocks not
// counted apart leave it at the last key that was.
func (h *Hint) Last() (typ string, rule any, second int64, ok bool) {
	e := h.e.Load()
	if e == nil {
		return "", nil, 0, false
	}
	return e.k.typ, e.rule, e.sec, true
}

// New returns an aggregator that writes to logger() and reads the runtime
// clock with now (Unix ms).
func New(logger func() *slog.Logger, now func() int64) *Aggregator {
	a := &Aggregator{logger: logger, now: now, entries: make(map[key]*entry), dropped: make(map[dropKey]int64)}
	a.lines.Store(DefaultLines)
	return a
}

// SetLines sets how many of a second's busiest keys get a line of their own
// (at least 1); the rest is folded per resource.
func (a *Aggregator) SetLines(n int) { a.lines.Store(int64(max(n, 1))) }

// Add counts n blocks at time now of resource by a rule of type typ, for a
// call from origin ("" when unknown). h, which may be nil, is the caller's
// Hint.
func (a *Aggregator) Add(h *Hint, now int64, resource, typ string, rule any, origin string, n int64) {
	a.add(h, nil, now, key{resource: resource, typ: typ, origin: origin, rule: rule}, n)
}

// AddFor is Add for a block that id, a pointer, stands for: the caller
// passes the same id for every block of the same resource, type and rule
// (the runtime's shared BlockError), so that a storm of them finds its
// entry in h by id and origin, without comparing the rest of the key. A
// nil id is Add. stripe is the caller's processor stripe (stat.Stripe),
// the part of the count it adds to.
func (a *Aggregator) AddFor(h *Hint, id any, now int64, resource, typ string, rule any, origin string, n int64, stripe int) {
	if id != nil && h != nil {
		if e := h.e.Load(); e != nil && e.id == id && e.sec >= now/1000 && e.k.origin == origin && e.tryAdd(n, stripe) {
			return
		}
	}
	a.add(h, id, now, key{resource: resource, typ: typ, origin: origin, rule: rule}, n)
}

// AddDryRun counts n would-be blocks: calls that a dry-run rule would have
// blocked and admitted. They are counted and written apart from blocks
// ("sentinel: would block (dry run)"). h should be a Hint kept for dry-run
// blocks only, so that it does not alternate with the caller's blocks.
func (a *Aggregator) AddDryRun(h *Hint, now int64, resource, typ string, rule any, origin string, n int64) {
	a.add(h, nil, now, key{resource: resource, typ: typ, origin: origin, rule: rule, dryRun: true}, n)
}

func (a *Aggregator) add(h *Hint, id any, now int64, k key, n int64) {
	resource, rule := k.resource, k.rule
	if rule != nil && !keyable(rule) {
		k.rule = reflect.TypeOf(rule) // a rule that cannot be a map key: one line per type
	}
	sec := now / 1000
	if h != nil {
		if e := h.e.Load(); e != nil && e.sec >= sec && e.k == k && e.tryAdd(n, 0) {
			return
		}
	}

	a.mu.Lock()
	var done *pending
	if sec > a.sec {
		done = a.takeLocked()
		a.sec = sec
	}
	// A block of an earlier second (a call that read the clock just before
	// the second turned) counts in the current one.
	if e := a.entries[k]; e != nil {
		e.tryAdd(n, 0) // entries in the map are open: only takeLocked closes them
		if h != nil {
			h.e.Store(e)
		}
	} else if len(a.entries) < MaxKeys {
		e := newEntry(k, a.sec, rule, id)
		e.blocks[0].v.Store(n)
		a.entries[k] = e
		a.order = append(a.order, e)
		if h != nil {
			h.e.Store(e)
		}
	} else {
		a.dropped[dropKey{resource, k.dryRun}] += n
	}
	if !a.armed {
		a.armLocked()
	}
	a.mu.Unlock()
	a.write(done)
}

// keyable reports whether rule can be a map key. The type decides,
// except for structs and arrays, whose interface fields may hold values
// that cannot (the value is asked only then: reflect.ValueOf is not free).
func keyable(rule any) bool {
	t := reflect.TypeOf(rule)
	if !t.Comparable() {
		return false
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Array:
		return reflect.ValueOf(rule).Comparable()
	}
	return true
}

// Flush writes every pending line now.
func (a *Aggregator) Flush() {
	a.mu.Lock()
	done := a.takeLocked()
	a.mu.Unlock()
	a.write(done)
}

// pending is one second's counts, taken out of the aggregator to be
// written without its lock.
type pending struct {
	sec     int64
	entries []*entry // with their final counts in total
	totals  []int64
	dropped map[dropKey]int64
}

// takeLocked closes the pending entries and returns them.
func (a *Aggregator) takeLocked() *pending {
	if len(a.order) == 0 && len(a.dropped) == 0 {
		return nil
	}
	p := &pending{sec: a.sec, entries: make([]*entry, len(a.order)), totals: make([]int64, len(a.order)), dropped: a.dropped}
	for i, e := range a.order {
		p.entries[i] = e
		p.totals[i] = e.take()
	}
	clear(a.entries)
	clear(a.order)
	a.order = a.order[:0]
	a.dropped = make(map[dropKey]int64)
	return p
}

// fold is one resource's blocks that get no line of their own.
type fold struct {
	resource     string
	combinations int
	origins      map[string]struct{}
	blocks       int64
	wouldBlocks  int64 // dry-run rules' would-be blocks, apart from blocks
	untracked    int64 // blocks and would-be blocks of keys past MaxKeys
}

func (f *fold) add(n int64, dryRun bool) {
	if dryRun {
		f.wouldBlocks += n
	} else {
		f.blocks += n
	}
}

func (f *fold) total() int64 { return f.blocks + f.wouldBlocks }

func (a *Aggregator) write(p *pending) {
	if p == nil {
		return
	}
	l := a.logger()
	ctx := context.Background()
	second := slog.Time("second", time.UnixMilli(p.sec*1000).UTC())
	limit := int(a.lines.Load())

	// The busiest keys first; ties keep first-seen order.
	idx := make([]int, len(p.entries))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return p.totals[idx[i]] > p.totals[idx[j]] })

	folds := map[string]*fold{}
	foldOf := func(resource string) *fold {
		f := folds[resource]
		if f == nil {
			f = &fold{resource: resource, origins: map[string]struct{}{}}
			folds[resource] = f
		}
		return f
	}
	for rank, i := range idx {
		e, n := p.entries[i], p.totals[i]
		if rank < limit {
			attrs := []slog.Attr{second,
				slog.String("resource", safetext.Log(e.k.resource, maxNameBytes)),
				slog.String("type", safetext.Log(e.k.typ, maxNameBytes)),
				slog.String("rule", RuleText(e.rule)),
			}
			if e.k.origin != "" {
				attrs = append(attrs, slog.String("origin", safetext.Log(e.k.origin, maxNameBytes)))
			}
			attrs = append(attrs, slog.Int64("blocks", n))
			msg := "sentinel: blocked"
			if e.k.dryRun {
				msg = "sentinel: would block (dry run)"
			}
			l.LogAttrs(ctx, slog.LevelInfo, msg, attrs...)
			continue
		}
		f := foldOf(e.k.resource)
		f.combinations++
		if e.k.origin != "" {
			f.origins[e.k.origin] = struct{}{}
		}
		f.add(n, e.k.dryRun)
	}
	for dk, n := range p.dropped {
		f := foldOf(dk.resource)
		f.add(n, dk.dryRun)
		f.untracked += n
	}
	if len(folds) == 0 {
		return
	}
	sorted := make([]*fold, 0, len(folds))
	for _, f := range folds {
		sorted = append(sorted, f)
	}
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].total() != sorted[j].total() {
			return sorted[i].total() > sorted[j].total()
		}
		return sorted[i].resource < sorted[j].resource
	})
	var restResources, restBlocks, restWould int64
	for i, f := range sorted {
		if i >= limit {
			restResources++
			restBlocks += f.blocks
			restWould += f.wouldBlocks
			continue
		}
		attrs := []slog.Attr{second,
			slog.String("resource", safetext.Log(f.resource, maxNameBytes)),
			slog.Int("combinations", f.combinations),
			slog.Int("origins", len(f.origins)),
		}
		if f.untracked > 0 {
			attrs = append(attrs, slog.Int64("untracked", f.untracked))
		}
		attrs = append(attrs, slog.Int64("blocks", f.blocks))
		if f.wouldBlocks > 0 {
			attrs = append(attrs, slog.Int64("dryRunBlocks", f.wouldBlocks))
		}
		l.LogAttrs(ctx, slog.LevelInfo, "sentinel: blocked, folded", attrs...)
	}
	if restResources > 0 {
		attrs := []slog.Attr{second, slog.Int64("resources", restResources), slog.Int64("blocks", restBlocks)}
		if restWould > 0 {
			attrs = append(attrs, slog.Int64("dryRunBlocks", restWould))
		}
		l.LogAttrs(ctx, slog.LevelInfo, "sentinel: blocked, folded resources", attrs...)
	}
}

// RuleText renders a rule for a log line or a span event: its String
// method when it has one, else Go's %+v, made safe and cut.
func RuleText(rule any) string {
	var s string
	switch r := rule.(type) {
	case nil:
		return ""
	case fmt.Stringer:
		s = r.String()
	default:
		s = fmt.Sprintf("%+v", r)
	}
	return safetext.Log(s, maxRuleBytes)
}

// tick writes each second's lines shortly after the runtime clock leaves
// that second, while blocks keep coming. It is a timer, not a goroutine
// that sleeps: between seconds nothing runs. It stops re-arming when
// nothing is pending or the clock did not move (a test clock: the next Add
// or Flush writes the lines).
func (a *Aggregator) tick() {
	a.mu.Lock()
	sec := a.now() / 1000
	var done *pending
	if sec > a.sec {
		done = a.takeLocked()
		a.sec = sec
	}
	if done != nil && (len(a.order) > 0 || len(a.dropped) > 0) {
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
