package stat

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// t0 is an aligned minute, so bucket starts are easy to read.
const t0 = int64(1_764_000_000_000)

func TestWindowJavaArithmetic(t *testing.T) {
	w := NewWindow(2, 1000)
	require.EqualValues(t, 500, w.BucketMs())

	slot, start := w.pos(t0 + 1234)
	assert.Equal(t, &w.buckets()[((t0+1234)/500)%2], slot, "index is (t/len) %% n")
	assert.Equal(t, t0+1000, start, "start is t - t%%len")

	w.Add(t0, Pass, 1)
	assert.EqualValues(t, 1, w.Sum(t0+999, Pass), "a bucket 999 ms old is in the window")
	assert.EqualValues(t, 0, w.Sum(t0+1000, Pass), "a bucket whose slot now belongs to t is stale")
}

func TestWindowTwelveAndEight(t *testing.T) {
	// The design's example: 12 passes in one bucket and 8 in the next fill a
	// 20-per-second window until the 12-bucket leaves it.
	w := NewWindow(2, 1000)
	w.Add(t0+100, Pass, 12)
	w.Add(t0+600, Pass, 8)
	assert.EqualValues(t, 20, w.Sum(t0+999, Pass))
	assert.False(t, w.TryAdd(t0+999, Pass, 1, 20), "a 21st pass exceeds 20")
	assert.EqualValues(t, 8, w.Sum(t0+1000, Pass), "the 12-bucket left the window")
	assert.True(t, w.TryAdd(t0+1000, Pass, 1, 20))
	assert.EqualValues(t, 9, w.Sum(t0+1000, Pass))
}

func TestWindowStaleness(t *testing.T) {
	tests := []struct {
		name     string
		addAt    int64
		readAt   int64
		expected int64
	}{
		{"same bucket", t0, t0 + 499, 1},
		{"previous bucket", t0, t0 + 500, 1},
		{"previous bucket, last millisecond", t0, t0 + 999, 1},
		{"two buckets back", t0, t0 + 1000, 0},
		{"long gone", t0, t0 + 60_000, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewWindow(2, 1000)
			w.Add(tt.addAt, Pass, 1)
			assert.Equal(t, tt.expected, w.Sum(tt.readAt, Pass))
		})
	}
}

func TestWindowCompletionAndMinRT(t *testing.T) {
	w := NewWindow(2, 1000)
	assert.EqualValues(t, DefaultMaxRT, w.MinRT(t0), "nothing completed")
	w.AddCompletion(t0, 30, 1, false)
	w.AddCompletion(t0+10, 10, 2, true)
	w.AddCompletion(t0+600, 0, 1, false)
	assert.EqualValues(t, 4, w.Sum(t0+600, Success))
	assert.EqualValues(t, 2, w.Sum(t0+600, Exception))
	assert.EqualValues(t, 40, w.Sum(t0+600, RT))
	assert.EqualValues(t, 1, w.MinRT(t0+600), "minRt is at least 1, as Java")
	assert.EqualValues(t, 10, w.MinRT(t0+400))
	assert.EqualValues(t, 3, w.Max(t0+600, Success))
	assert.EqualValues(t, 3, w.Previous(t0+600, Success))
	assert.EqualValues(t, 1, w.Previous(t0+1100, Success), "the bucket before t0+1000 is t0+500, which holds 1")
	assert.EqualValues(t, 0, w.Previous(t0+1600, Success), "t0+1000 holds nothing")
}

func TestWindowAddAtUndoesOnlyWhileTheBucketLives(t *testing.T) {
	w := NewWindow(2, 1000)
	w.Add(t0, Pass, 3)
	assert.True(t, w.AddAt(t0+5, Pass, -1))
	assert.EqualValues(t, 2, w.Sum(t0, Pass))
	w.Add(t0+1000, Pass, 1) // replaces t0's bucket
	assert.False(t, w.AddAt(t0, Pass, -1))
	assert.EqualValues(t, 1, w.Sum(t0+1000, Pass))
}

func TestWindowBuckets(t *testing.T) {
	w := NewWindow(60, 60_000)
	for i := int64(0); i < 5; i++ {
		w.Add(t0+i*1000, Pass, i+1)
	}
	bs := w.Buckets(t0 + 4500)
	require.Len(t, bs, 5)
	for i, b := range bs {
		assert.Equal(t, t0+int64(i)*1000, b.Start)
		assert.EqualValues(t, i+1, b.Pass)
	}
}

func TestNodePreviousSecond(t *testing.T) {
	n := NewNode(false)
	pass(n, t0+100, 3)
	pass(n, t0+700, 4)
	pass(n, t0+1200, 5)
	assert.EqualValues(t, 7, n.PreviousPassQPS(t0+1999), "the whole second [t0, t0+1000)")
	assert.EqualValues(t, 5, n.PreviousPassQPS(t0+2000))
	assert.EqualValues(t, 9, n.PassQPS(t0+1200))
}

func TestNodeMetrics(t *testing.T) {
	n := NewNode(true)
	tk := TickAt(t0)
	tk.Pass(n, 1)
	tk.Pass(n, 1)
	tk.Block(n, 1)
	done := TickAt(t0 + 20)
	done.Complete(n, 20, 1, false)
	m := n.Metrics(t0 + 20)
	assert.Equal(t, Metrics{
		PassQPS: 2, BlockQPS: 1, SuccessQPS: 1, AvgRT: 20, MinRT: 20, Threads: 1,
		MinutePass: 2, MinuteBlock: 1, MinuteSuccess: 1,
	}, m)
	assert.EqualValues(t, 2, n.MaxSuccessQPS(t0+20), "one success in a 500 ms bucket is 2 per second")
}

// Concurrent writers lose no count, including while stale buckets are
// replaced under them: each phase moves to a time whose slot holds the
// previous phase's stale bucket, and every writer races to replace it.
func TestWindowConcurrentWritersLoseNothing(t *testing.T) {
	const writers, perWriter, phases = 8, 2000, 5
	for _, stripes := range []int{1, stripeCount, 4} {
		w := newWindow(2, 1000, 2, stripes)
		for p := int64(0); p < phases; p++ {
			now := t0 + p*1000 // same slot every phase
			var wg sync.WaitGroup
			for range writers {
				wg.Go(func() {
					for range perWriter {
						w.Add(now, Pass, 1)
						w.AddCompletion(now, 2, 1, false)
					}
				})
			}
			wg.Wait()
			require.EqualValues(t, writers*perWriter, w.Sum(now, Pass), "phase %d, %d stripes", p, stripes)
			require.EqualValues(t, writers*perWriter, w.Sum(now, Success))
			require.EqualValues(t, 2*writers*perWriter, w.Sum(now, RT))
		}
	}
}

// movingClock is a time that a goroutine moves forward by step ms as fast
// as it can, up to 50 s past t0, until stop.
func movingClock(step int64) (now *atomic.Int64, stop func()) {
	now = new(atomic.Int64)
	now.Store(t0)
	done := make(chan struct{})
	var ticker sync.WaitGroup
	ticker.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
				if now.Load() < t0+50_000 {
					now.Add(step)
				}
			}
		}
	})
	return now, func() { close(done); ticker.Wait() }
}

// Writers racing a moving clock: every count lands in a bucket that is
// still in the minute window.
func TestWindowConcurrentWritersWithMovingClock(t *testing.T) {
	w := newWindow(60, 60_000, 60, stripeCount)
	now, stop := movingClock(7)
	const writers, perWriter = 8, 5000
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range perWriter {
				w.Add(now.Load(), Pass, 1)
			}
		})
	}
	wg.Wait()
	stop()
	assert.EqualValues(t, writers*perWriter, w.Sum(now.Load(), Pass))
}

func TestTryAddNeverOvershoots(t *testing.T) {
	w := NewWindow(2, 1000)
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 1000 {
				if w.TryAdd(t0+250, Pass, 1, 100) {
					admitted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, 100, admitted.Load())
	assert.EqualValues(t, 100, w.Sum(t0+250, Pass))
}

func BenchmarkNodePassComplete(b *testing.B) {
	n := NewNode(true)
	for b.Loop() {
		tk := TickAt(t0)
		tk.Pass(n, 1)
		tk.Complete(n, 1, 1, false)
	}
}

func BenchmarkNodePassQPS(b *testing.B) {
	n := NewNode(false)
	pass(n, t0, 1)
	for b.Loop() {
		_ = n.PassQPS(t0)
	}
}

func TestNodeHistoryKeepsEverySecondOfTheMinute(t *testing.T) {
	n := NewNode(true)
	for s := int64(0); s < 10; s++ {
		tk := TickAt(t0 + s*1000 + 100)
		tk.Pass(n, s+1)
		tk = TickAt(t0 + s*1000 + 700) // the second half of the second
		tk.Pass(n, 1)
		tk.Complete(n, 10+s, 1, s%2 == 0)
	}
	h := n.History(t0 + 9500)
	require.Len(t, h, 10, "buckets moved to the minute and buckets still in the ring, merged")
	for s, c := range h {
		assert.Equal(t, t0+int64(s)*1000, c.Start)
		assert.EqualValues(t, s+2, c.Pass, "second %d", s)
		assert.EqualValues(t, 1, c.Success)
		assert.EqualValues(t, 10+s, c.MinRT)
		assert.EqualValues(t, 1-s%2, c.Exception)
	}
	m := n.Metrics(t0 + 9500)
	assert.EqualValues(t, 10*2+45, m.MinutePass)
	assert.EqualValues(t, 5, m.MinuteException)

	h = n.History(t0 + 65_000)
	require.NotEmpty(t, h)
	assert.Equal(t, t0+6000, h[0].Start, "seconds older than a minute are gone")
	assert.Empty(t, NewNode(false).History(t0), "a node without history has none")
}

// The metric command and the metric log serve whole seconds: the 60
// before now's second are all still held.
func TestNodeWholeSecondsAreTheMinuteBeforeNow(t *testing.T) {
	n := NewNode(true)
	for s := int64(0); s < 71; s++ {
		tk := TickAt(t0 + s*1000 + 200)
		tk.Pass(n, s+1)
	}
	now := t0 + 70_400 // in second 70, which is not over
	w := n.WholeSeconds(now, 0)
	require.Len(t, w, 60, "a whole minute")
	for i, c := range w {
		s := int64(10 + i)
		assert.Equal(t, t0+s*1000, c.Start)
		assert.EqualValues(t, s+1, c.Pass, "second %d", s)
	}
	h := n.History(now)
	assert.Equal(t, t0+11_000, h[0].Start, "History ends with the current second")
	assert.Equal(t, t0+70_000, h[len(h)-1].Start)
	w = n.WholeSeconds(now, t0+65_500)
	require.Len(t, w, 5, "seconds 65 to 69")
	assert.Equal(t, t0+65_000, w[0].Start)
	assert.Empty(t, n.WholeSeconds(now, now), "now's second is not over")
	assert.Empty(t, NewNode(false).WholeSeconds(now, 0))
}

// Writers racing a moving clock across many seconds: every count ends up
// in the history exactly once, whether the writer that renewed a bucket
// moved it or a writer that raced the renewal did.
func TestNodeHistoryLosesNothingUnderConcurrentWriters(t *testing.T) {
	n := NewNode(true)
	now, stop := movingClock(3)
	const writers, perWriter = 8, 5000
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range perWriter {
				tk := TickAt(now.Load())
				tk.Pass(n, 1)
				tk.Complete(n, 2, 1, false)
			}
		})
	}
	wg.Wait()
	stop()
	var pass, succ, rt int64
	for _, c := range n.History(now.Load()) {
		pass += c.Pass
		succ += c.Success
		rt += c.RT
	}
	assert.EqualValues(t, writers*perWriter, pass)
	assert.EqualValues(t, writers*perWriter, succ)
	assert.EqualValues(t, 2*writers*perWriter, rt)
	assert.EqualValues(t, 0, n.Threads())
}

// pass counts count passes on n at now, as one call.
func pass(n *Node, now, count int64) {
	tk := TickAt(now)
	tk.Pass(n, count)
}

// A bucket's cells are one allocation, each exactly a cache line that
// carries the bucket's start: a writer reads and writes its own line only,
// and processors counting on different stripes never share one.
func TestBucketCellsEachStartALine(t *testing.T) {
	for _, stripes := range []int{1, 2, 4, 8, 16} {
		b := newBucket(t0, stripes)
		require.EqualValues(t, stripes, b.n)
		seen := map[*cell]bool{}
		for s := range stripes {
			c := b.cell(s)
			assert.False(t, seen[c], "stripes=%d: cell %d is its own", stripes, s)
			seen[c] = true
			assert.EqualValues(t, DefaultMaxRT, c.minRT.Load())
			assert.Zero(t, uintptr(unsafe.Pointer(c))%64, "stripes=%d: cell %d starts a line", stripes, s)
			assert.Same(t, c, b.stripe(s))
			assert.EqualValues(t, t0, c.start, "stripes=%d: cell %d carries the start", stripes, s)
			c.counts[Pass].Add(int64(s + 1))
		}
		assert.EqualValues(t, stripes*(stripes+1)/2, b.sum(Pass))
		assert.Panics(t, func() { b.cell(stripes) }, "an index past the cells is refused")
		assert.EqualValues(t, 64, unsafe.Sizeof(cell{}), "a cell is one line")
	}
}

// Window shapes past the small fields are refused, not truncated, on every
// platform; the largest ones count as any other. An occupiable window keeps
// twice its buckets, so its bound is half NewWindow's.
func TestWindowShapeBounds(t *testing.T) {
	const refused = "stat: window too long or with too many slots"
	assert.PanicsWithValue(t, refused, func() { NewWindow(1<<16, 1<<16) })
	assert.PanicsWithValue(t, refused, func() { NewWindow(1, 1<<31) })
	assert.PanicsWithValue(t, refused, func() { NewOccupiableWindow(1<<15, 1<<15) })
	assert.PanicsWithValue(t, refused, func() { NewOccupiableWindow(1, 1<<31) })

	longest := NewWindow(1, 1<<31-1)
	longest.Add(t0, Pass, 2)
	assert.EqualValues(t, 2, longest.Sum(t0+1<<30, Pass))
	assert.EqualValues(t, 1<<31-1, longest.BucketMs())

	widest := NewWindow(1<<16-1, 1<<16-1)
	widest.Add(t0, Pass, 3)
	widest.Add(t0+1<<16-2, Pass, 4)
	assert.EqualValues(t, 7, widest.Sum(t0+1<<16-2, Pass))
	assert.EqualValues(t, 4, widest.Sum(t0+1<<16-1, Pass), "the first bucket left the window")
	assert.Equal(t, 1<<16-1, widest.SampleCount())

	occupiable := NewOccupiableWindow(1<<15-1, 1<<15-1)
	occupiable.Reserve(t0+10, Pass, 1)
	assert.EqualValues(t, 1, occupiable.Waiting(t0, Pass))
}
