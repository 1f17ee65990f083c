package blocklog_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/sentinelgen/sentinelgen/internal/blocklog"
)

const t0 = int64(1_764_000_000_000)

type rule struct{ name string }

// nonComparable is a rule type that cannot be a map key.
type nonComparable struct{ ids []int }

// capture is a logger whose lines tests read back.
type capture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capture) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(&lockedWriter{c}, nil))
}

type lockedWriter struct{ c *capture }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	return w.c.buf.Write(p)
}

func (c *capture) lines(t *testing.T) []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(c.buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		delete(m, "time")
		out = append(out, m)
	}
	return out
}

func newAggregator(c *capture, now *atomic.Int64) *blocklog.Aggregator {
	return blocklog.New(c.logger, now.Load)
}

func TestOneLinePerResourceRuleAndOriginPerSecond(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := newAggregator(&c, &now)
	flowA, flowB := &rule{"a"}, &rule{"b"}
	for range 1000 {
		a.Add(nil, t0+10, "getOrder", "flow", flowA, "", 1)
	}
	a.Add(nil, t0+20, "getOrder", "flow", flowB, "", 2)
	a.Add(nil, t0+30, "getOrder", "flow", flowA, "app-x", 1)
	a.Add(nil, t0+40, "pay", "degrade", flowA, "", 1)
	assert.Empty(t, c.lines(t), "nothing is written while the second lasts")

	a.Add(nil, t0+1000, "getOrder", "flow", flowA, "", 1) // the next second
	second := time.UnixMilli(t0).UTC().Format(time.RFC3339)
	lines := c.lines(t)
	require.Len(t, lines, 4, "one line per key, not per block")
	want := []struct {
		resource, typ, rule, origin string
		blocks                      float64
	}{
		{"getOrder", "flow", "a", "", 1000},
		{"getOrder", "flow", "b", "", 2},
		{"getOrder", "flow", "a", "app-x", 1},
		{"pay", "degrade", "a", "", 1},
	}
	for i, w := range want {
		l := lines[i]
		assert.Equal(t, "sentinel: blocked", l["msg"])
		assert.Equal(t, "INFO", l["level"])
		assert.Equal(t, second, l["second"])
		assert.Equal(t, w.resource, l["resource"])
		assert.Equal(t, w.typ, l["type"])
		assert.Equal(t, "&{name:"+w.rule+"}", l["rule"], "the rule as %+v renders it")
		assert.Equal(t, w.blocks, l["blocks"])
		if w.origin == "" {
			assert.NotContains(t, l, "origin")
		} else {
			assert.Equal(t, w.origin, l["origin"])
		}
	}

	a.Flush()
	lines = c.lines(t)
	require.Len(t, lines, 5)
	assert.EqualValues(t, 1, lines[4]["blocks"])
	a.Flush()
	assert.Len(t, c.lines(t), 5, "nothing twice")
}

func TestBoundedKeys(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := newAggregator(&c, &now)
	r := &rule{"r"}
	for i := range blocklog.MaxKeys + 10 {
		a.Add(nil, t0, "res", "flow", r, "origin-"+strconv.Itoa(i), 1)
	}
	a.Flush()
	lines := c.lines(t)
	require.Len(t, lines, blocklog.DefaultLines+1)
	last := lines[len(lines)-1]
	assert.Equal(t, "sentinel: blocked, folded", last["msg"])
	assert.EqualValues(t, blocklog.MaxKeys-blocklog.DefaultLines, last["combinations"])
	assert.EqualValues(t, 10, last["untracked"], "blocks past the key table are still counted")
	assert.EqualValues(t, blocklog.MaxKeys+10-blocklog.DefaultLines, last["blocks"])
}

// An attacker's storm: 100,000 distinct origins blocked on many resources
// within one second. The log writes a bounded number of short lines whose
// blocks add up to every block made.
func TestStormOfOriginsWritesBoundedLines(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := newAggregator(&c, &now)
	rules := []*rule{{"a"}, {"b"}}
	const n = 100_000
	var made int64
	a.Add(nil, t0+1, "hot", "flow", rules[0], "", 1_000_000)
	made += 1_000_000
	for i := range n {
		resource := "res-" + strconv.Itoa(i%100)
		origin := "attacker-" + strconv.Itoa(i) + strings.Repeat("\n\xff", i%3)
		blocks := int64(1 + i%4)
		a.Add(nil, t0+int64(i%1000), resource, "flow", rules[i%2], origin, blocks)
		made += blocks
	}
	a.Add(nil, t0+999, "late", "flow", rules[0], "", 500_000) // past the key table
	made += 500_000
	a.Flush()
	c.mu.Lock()
	written := c.buf.Len()
	c.mu.Unlock()
	lines := c.lines(t)
	t.Logf("%d blocks from %d origins: %d lines, %d bytes", made, n, len(lines), written)
	assert.LessOrEqual(t, len(lines), 2*blocklog.DefaultLines+1)
	assert.Less(t, written, 2*blocklog.DefaultLines*512+512, "bytes per second are bounded too")
	assert.Equal(t, "hot", lines[0]["resource"], "the busiest key comes first")
	folded := lines[blocklog.DefaultLines]
	assert.Equal(t, "late", folded["resource"], "the busiest folded resource comes first")
	assert.EqualValues(t, 500_000, folded["untracked"])
	var total float64
	for _, l := range lines {
		total += l["blocks"].(float64)
	}
	assert.EqualValues(t, made, total, "the lines count every block")
	last := lines[len(lines)-1]
	assert.Equal(t, "sentinel: blocked, folded resources", last["msg"])
}

func TestValuesAreSanitised(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := blocklog.New(func() *slog.Logger { return slog.New(slog.NewTextHandler(&lockedWriter{&c}, nil)) }, now.Load)
	a.Add(nil, t0, "res\nlevel=ERROR msg=forged", "flow", &rule{"r"}, "o\xff"+strings.Repeat("x", 100_000), 1)
	a.Flush()
	c.mu.Lock()
	out := c.buf.String()
	c.mu.Unlock()
	assert.Equal(t, 1, strings.Count(out, "\n"), "one line: a newline in a value cannot forge another")
	assert.Less(t, len(out), 1024, "a long origin is cut")
	assert.Contains(t, out, `o\\xff`, "a bad byte is shown escaped")
}

func TestSetLines(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := newAggregator(&c, &now)
	a.SetLines(2)
	for i := range 10 {
		a.Add(nil, t0, "res", "flow", &rule{"r"}, "o"+strconv.Itoa(i), int64(10-i))
	}
	a.Flush()
	lines := c.lines(t)
	require.Len(t, lines, 3)
	assert.Equal(t, "o0", lines[0]["origin"])
	assert.Equal(t, "o1", lines[1]["origin"])
	assert.EqualValues(t, 8, lines[2]["origins"])
	assert.EqualValues(t, 8+7+6+5+4+3+2+1, lines[2]["blocks"])
}

// A comparable struct type whose interface field holds a slice is not a
// valid map key: the value, not the type, decides.
type ruleWithAny struct{ Extra any }

func TestRuleValuesThatHoldUnhashableValues(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := newAggregator(&c, &now)
	assert.NotPanics(t, func() {
		a.Add(nil, t0, "res", "custom", ruleWithAny{Extra: []int{1}}, "", 1)
		a.Add(nil, t0, "res", "custom", ruleWithAny{Extra: 1}, "", 1)
	})
	a.Flush()
	assert.NotEmpty(t, c.lines(t))
}

func TestRulesThatCannotBeMapKeys(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := newAggregator(&c, &now)
	assert.NotPanics(t, func() {
		a.Add(nil, t0, "res", "custom", nonComparable{ids: []int{1}}, "", 1)
		a.Add(nil, t0, "res", "custom", nonComparable{ids: []int{2}}, "", 1)
		a.Add(nil, t0, "res", "custom", nil, "", 1)
	})
	a.Flush()
	lines := c.lines(t)
	require.Len(t, lines, 2, "rules of one uncomparable type share a line; a nil rule has its own")
	assert.EqualValues(t, 2, lines[0]["blocks"])
}

func TestConcurrentBlocksAreAllCounted(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := newAggregator(&c, &now)
	r := &rule{"r"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				a.Add(nil, t0+5, "res", "flow", r, "", 1)
			}
		})
	}
	wg.Wait()
	a.Flush()
	lines := c.lines(t)
	require.Len(t, lines, 1)
	assert.EqualValues(t, 8000, lines[0]["blocks"])
}

// The timer writes a finished second without waiting for the next block.
func TestTimerWritesAFinishedSecond(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0 + 900)
	a := newAggregator(&c, &now)
	a.Add(nil, t0+900, "res", "flow", &rule{"r"}, "", 3)
	now.Store(t0 + 1500) // the clock moved on; no more blocks
	require.Eventually(t, func() bool { return len(c.lines(t)) == 1 }, 5*time.Second, 10*time.Millisecond)
	assert.EqualValues(t, 3, c.lines(t)[0]["blocks"])
}

// With a clock that stands still (a test clock), the timer is not armed
// again and the second's lines wait for the next block or Flush.
func TestTimerStopsWhenTheClockStandsStill(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0 + 990)
	a := newAggregator(&c, &now)
	a.Add(nil, t0+990, "res", "flow", &rule{"r"}, "", 1)
	assert.Empty(t, c.lines(t))
	a.Flush()
	assert.Len(t, c.lines(t), 1)
}

// Blocks added through a Hint, lock-free, are neither lost nor counted
// twice while lines are taken concurrently.
func TestHintedBlocksSurviveConcurrentFlushes(t *testing.T) {
	defer goleak.VerifyNone(t)
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := newAggregator(&c, &now)
	r := &rule{"r"}
	var hint blocklog.Hint
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 2000 {
				a.Add(&hint, t0+5, "res", "flow", r, "", 1)
			}
		})
	}
	stop := make(chan struct{})
	var flusher sync.WaitGroup
	flusher.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				a.Flush()
			}
		}
	})
	wg.Wait()
	close(stop)
	flusher.Wait()
	a.Flush()
	var total float64
	for _, l := range c.lines(t) {
		total += l["blocks"].(float64)
	}
	assert.EqualValues(t, 16000, total)
}

// A Hint names the type and rule of the last block it went to, through
// the lock-free path and after the second's lines were written, so a page
// can show why a resource blocks at no cost to blocked calls.
func TestHintNamesTheLastBlock(t *testing.T) {
	var c capture
	var now atomic.Int64
	now.Store(t0)
	a := newAggregator(&c, &now)
	var hint blocklog.Hint
	_, _, _, ok := hint.Last()
	assert.False(t, ok, "nothing blocked yet")

	flowRule, breaker := &rule{"flow"}, &rule{"breaker"}
	a.Add(&hint, t0+5, "res", "flow", flowRule, "", 1)
	a.Add(&hint, t0+6, "res", "flow", flowRule, "", 1) // the lock-free path
	typ, r, sec, ok := hint.Last()
	require.True(t, ok)
	assert.Equal(t, "flow", typ)
	assert.Same(t, flowRule, r)
	assert.Equal(t, t0/1000, sec)

	a.Add(&hint, t0+1500, "res", "degrade", breaker, "app-a", 1)
	a.Flush()
	typ, r, sec, _ = hint.Last()
	assert.Equal(t, "degrade", typ, "the latest block, its line written")
	assert.Same(t, breaker, r)
	assert.Equal(t, t0/1000+1, sec)
}

func BenchmarkAddWithHint(b *testing.B) {
	var now atomic.Int64
	now.Store(t0)
	a := blocklog.New(func() *slog.Logger { return slog.New(slog.DiscardHandler) }, now.Load)
	r := &rule{"r"}
	var hint blocklog.Hint
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			a.Add(&hint, t0, "res", "flow", r, "", 1)
		}
	})
}

func BenchmarkAddWithoutHint(b *testing.B) {
	var now atomic.Int64
	now.Store(t0)
	a := blocklog.New(func() *slog.Logger { return slog.New(slog.DiscardHandler) }, now.Load)
	r := &rule{"r"}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			a.Add(nil, t0, "res", "flow", r, "", 1)
		}
	})
}
