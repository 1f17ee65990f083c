package runtime_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
)

// exitCounter is a slot on the resources it names that counts the exits
// it sees and the errors recorded on them, and refuses while refuse is set.
type exitCounter struct {
	names  map[string]bool
	exits  atomic.Int64
	errs   atomic.Int64
	refuse atomic.Bool
}

func countExits(t *testing.T, names ...string) *exitCounter {
	s := &exitCounter{names: map[string]bool{}}
	for _, n := range names {
		s.names[n] = true
	}
	register(t, t.Name()+"/exits", 10, s)
	return s
}

func (s *exitCounter) Bind(r *runtime.Resource) runtime.Checker {
	if !s.names[r.Name()] {
		return nil
	}
	return s
}

func (s *exitCounter) Check(c *runtime.Call) *runtime.BlockError {
	if s.refuse.Load() {
		return c.Block(runtime.BlockFlow, nil, nil)
	}
	return nil
}

func (s *exitCounter) Exit(c *runtime.Call) {
	s.exits.Add(1)
	if c.Err() != nil {
		s.errs.Add(1)
	}
}

func threads(r *runtime.Resource) int64 { return r.ClusterNode().Threads() }

func TestEnterAndExitATicketAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates, and its sync.Pool drops entries")
	}
	name := t.Name()
	s := countExits(t, name)
	r := runtime.Declare(runtime.ResourceSpec{Name: name})
	ctx := context.Background()
	tk, _ := r.Enter(ctx) // binds the chain, creates the nodes
	tk.Exit()
	assert.EqualValues(t, 0, testing.AllocsPerRun(200, func() {
		tk, b := r.Enter(ctx)
		if b != nil {
			t.Fatal(b)
		}
		tk.Exit()
	}), "admitted, through the handle")
	assert.EqualValues(t, 0, testing.AllocsPerRun(200, func() {
		tk, _ := runtime.Enter(ctx, name)
		tk.Exit()
	}), "admitted, by name")
	down := errors.New("down")
	assert.EqualValues(t, 0, testing.AllocsPerRun(200, func() {
		tk, _ := r.Enter(ctx)
		tk.Exit(runtime.WithError(down))
	}), "admitted, exited with an error")
	assert.EqualValues(t, 0, testing.AllocsPerRun(200, func() {
		tk, _ := r.Enter(ctx)
		tk.SetError(down)
		tk.Exit()
	}), "admitted, its error set")

	s.refuse.Store(true)
	assert.EqualValues(t, 1, testing.AllocsPerRun(200, func() {
		if tk, b := r.Enter(ctx); b == nil {
			tk.Exit()
			t.Fatal("admitted")
		}
	}), "refused: the BlockError this slot builds per refusal, no entry")
	assert.EqualValues(t, 0, threads(r))
}

// A ticket whose call has exited never reaches another call: a second
// Exit, an Exit of a copy, an Exit after its entry serves another call and
// Exits racing on other goroutines change no count but their own call's.
func TestAStaleTicketCannotExitAnotherCall(t *testing.T) {
	name, other := t.Name(), t.Name()+"/other"
	s := countExits(t, name, other)
	r := runtime.Declare(runtime.ResourceSpec{Name: name})
	o := runtime.Declare(runtime.ResourceSpec{Name: other})
	ctx := context.Background()

	t.Run("double Exit, and an Exit of a copy", func(t *testing.T) {
		before := s.exits.Load()
		tk, b := r.Enter(ctx)
		require.Nil(t, b)
		cp := tk
		tk.Exit()
		tk.Exit()
		cp.Exit(runtime.WithError(errors.New("late")))
		assert.Equal(t, before+1, s.exits.Load())
		assert.EqualValues(t, 0, threads(r))
	})

	t.Run("Exit after the entry serves another call", func(t *testing.T) {
		before, errsBefore := s.exits.Load(), s.errs.Load()
		stale, _ := r.Enter(ctx)
		stale.Exit()
		live, b := o.Enter(ctx) // most likely on stale's entry
		require.Nil(t, b)
		if !raceEnabled {
			require.Same(t, runtime.TicketEntry(stale), runtime.TicketEntry(live))
		}
		stale.SetError(errors.New("stale"))
		stale.Exit(runtime.WithError(errors.New("stale")))
		assert.Nil(t, stale.Context().Value(ctxKeyProbe{}), "a stale ticket's context carries nothing")
		assert.EqualValues(t, 1, threads(o), "the live call is still open")
		assert.Equal(t, before+1, s.exits.Load(), "and not exited")
		live.Exit()
		assert.EqualValues(t, 0, threads(o))
		assert.Equal(t, before+2, s.exits.Load())
		assert.Equal(t, errsBefore, s.errs.Load(), "the stale error went nowhere")
	})

	t.Run("Exits racing on other goroutines", func(t *testing.T) {
		before := s.exits.Load()
		const calls, racers = 2000, 3
		var wg sync.WaitGroup
		var stale []runtime.Ticket
		var mu sync.Mutex
		for i := range calls {
			res := r
			if i%2 == 1 {
				res = o
			}
			tk, b := res.Enter(ctx)
			require.Nil(t, b)
			for range racers {
				wg.Go(func() { tk.Exit() })
			}
			mu.Lock()
			stale = append(stale, tk)
			mu.Unlock()
			if i%7 == 0 { // exits of long-gone calls, while others run
				old := stale[i/2]
				wg.Go(func() { old.Exit() })
			}
		}
		wg.Wait()
		for _, tk := range stale {
			tk.Exit()
		}
		assert.Equal(t, before+calls, s.exits.Load(), "each call exited once")
		assert.EqualValues(t, 0, threads(r))
		assert.EqualValues(t, 0, threads(o))
	})

	t.Run("a nested ticket whose parent exits first", func(t *testing.T) {
		before := s.exits.Load()
		parent, _ := r.Enter(ctx)
		child, b := o.Enter(parent.Context())
		require.Nil(t, b)
		assert.EqualValues(t, 1, threads(o))
		parent.Exit() // exits the child first, as Java unwinds
		assert.EqualValues(t, 0, threads(o))
		assert.EqualValues(t, 0, threads(r))
		child.Exit()
		assert.Equal(t, before+2, s.exits.Load())
		assert.EqualValues(t, 0, threads(o))
	})

	t.Run("the zero ticket", func(t *testing.T) {
		var zero runtime.Ticket
		assert.False(t, zero.Entered())
		zero.Exit()
		assert.NotNil(t, zero.Context())
	})
}

type ctxKeyProbe struct{}

// A ticket's call is the call Entry would open: the same checks, counts
// and business error.
func TestATicketCountsAsAnEntry(t *testing.T) {
	name := t.Name()
	s := countExits(t, name)
	r := runtime.Declare(runtime.ResourceSpec{Name: name})
	tk, b := runtime.Enter(context.Background(), name)
	require.Nil(t, b)
	assert.True(t, tk.Entered())
	assert.EqualValues(t, 1, threads(r))
	tk.Exit(runtime.WithError(errors.New("down")))
	assert.EqualValues(t, 0, threads(r))
	assert.EqualValues(t, 1, s.errs.Load())
	tk, _ = r.Enter(context.Background())
	tk.SetError(errors.New("down"))
	tk.SetError(&runtime.BlockError{}) // never recorded
	tk.Exit()
	assert.EqualValues(t, 2, s.errs.Load())

	s.refuse.Store(true)
	tk, b = r.Enter(context.Background())
	require.NotNil(t, b)
	assert.False(t, tk.Entered())
	tk.Exit()
	assert.EqualValues(t, 2, s.exits.Load())
}

// A ticket on a resource keeping a response-time histogram has an entry of
// its own, timed, exited once; one entered while the runtime is switched
// off is neither checked nor counted, and its entry is reused all the same.
func TestTicketsOfTimedAndUncheckedCalls(t *testing.T) {
	name := t.Name()
	s := countExits(t, name, name+"/off")
	r := runtime.EnableRTHistogram(name)
	tk, b := r.Enter(context.Background())
	require.Nil(t, b)
	tk.Exit()
	tk.Exit()
	h, ok := r.RTHistogram()
	require.True(t, ok)
	assert.EqualValues(t, 1, h.Count, "timed once")
	assert.EqualValues(t, 1, s.exits.Load())
	assert.EqualValues(t, 0, threads(r))

	off := runtime.Declare(runtime.ResourceSpec{Name: name + "/off"})
	runtime.SetEnabled(false)
	t.Cleanup(func() { runtime.SetEnabled(true) })
	tk, b = off.Enter(context.Background())
	require.Nil(t, b)
	tk.Exit()
	runtime.SetEnabled(true)
	tk2, b := off.Enter(context.Background())
	require.Nil(t, b)
	assert.EqualValues(t, 1, threads(off), "counted once on again")
	tk.Exit() // stale: must not exit tk2
	assert.EqualValues(t, 1, threads(off))
	tk2.Exit()
	assert.EqualValues(t, 0, threads(off))
	assert.EqualValues(t, 2, s.exits.Load(), "the unchecked call saw no exit")
}
