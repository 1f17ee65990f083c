package runtime_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// recorder is an Observer that writes down what it saw, and puts a value
// of its own in the context of the calls it enters.
type recorder struct {
	tag string

	mu     sync.Mutex
	events []string
}

type recorderKey struct{}

func (r *recorder) Enter(c *runtime.Call) context.Context {
	r.add("enter " + c.Name())
	return context.WithValue(c.Context(), recorderKey{}, r.tag)
}

func (r *recorder) Block(c *runtime.Call, b *runtime.BlockError) {
	r.add("block " + c.Name() + " " + b.BlockType().String() + " " + c.Context().Value(recorderKey{}).(string))
}

func (r *recorder) Exit(c *runtime.Call) {
	ev := "exit " + c.Name()
	if err := c.Err(); err != nil {
		ev += " " + err.Error()
	}
	r.add(ev)
}

func (r *recorder) add(ev string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) log() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

func TestAnObserverSeesEveryCallEnterAndEndOnce(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	blocker := newTestSlot(name)
	blocker.block = func(c *runtime.Call) bool { return c.BatchCount() == 2 }
	register(t, name, 10, blocker)
	rec := &recorder{tag: "mine"}
	remove := runtime.AddObserver(rec)
	defer remove()

	e, b := runtime.Entry(context.Background(), name)
	require.Nil(t, b)
	assert.Equal(t, "mine", e.Context().Value(recorderKey{}), "the context Enter returned is the one the business method gets")
	e.Exit(runtime.WithError(errors.New("boom")))
	e.Exit() // a second Exit is not seen again

	_, b = runtime.Entry(context.Background(), name, runtime.WithBatchCount(2))
	require.NotNil(t, b)

	assert.Equal(t, []string{
		"enter " + name, "exit " + name + " boom",
		"enter " + name, "block " + name + " custom mine",
	}, rec.log())
}

func TestObserversRunInOrderAndLeaveWhenRemoved(t *testing.T) {
	clocktest.Install(t)
	name := t.Name()
	first, second := &recorder{tag: "first"}, &recorder{tag: "second"}
	removeFirst := runtime.AddObserver(first)
	removeSecond := runtime.AddObserver(second)

	e, b := runtime.Entry(context.Background(), name)
	require.Nil(t, b)
	assert.Equal(t, "second", e.Context().Value(recorderKey{}), "the later observer sees, and wraps, the earlier one's context")
	e.Exit()

	removeFirst()
	removeFirst() // idempotent: the second stays
	e, _ = runtime.Entry(context.Background(), name)
	e.Exit()
	removeSecond()
	e, _ = runtime.Entry(context.Background(), name)
	assert.Nil(t, e.Context().Value(recorderKey{}), "no observer, no wrapping")
	e.Exit()

	assert.Equal(t, []string{"enter " + name, "exit " + name}, first.log())
	assert.Equal(t, []string{"enter " + name, "exit " + name, "enter " + name, "exit " + name}, second.log())
}

func TestTheSameObserverRegisteredTwiceIsRemovedOnceAtATime(t *testing.T) {
	clocktest.Install(t)
	rec := &recorder{tag: "x"}
	removeA := runtime.AddObserver(rec)
	removeB := runtime.AddObserver(rec)
	removeA()
	e, _ := runtime.Entry(context.Background(), t.Name())
	e.Exit()
	removeB()
	assert.Equal(t, []string{"enter " + t.Name(), "exit " + t.Name()}, rec.log())
}

func TestCallsWhileSwitchedOffAreNotObserved(t *testing.T) {
	clocktest.Install(t)
	rec := &recorder{tag: "x"}
	defer runtime.AddObserver(rec)()
	runtime.SetEnabled(false)
	defer runtime.SetEnabled(true)
	e, b := runtime.Entry(context.Background(), t.Name())
	require.Nil(t, b)
	e.Exit()
	assert.Empty(t, rec.log())
}

func TestNoObserverCostsNoAllocation(t *testing.T) {
	clocktest.Install(t)
	r := runtime.Declare(runtime.ResourceSpec{Name: t.Name()})
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		e, _ := r.Entry(ctx)
		e.Exit()
	})
	assert.Equal(t, 1.0, allocs, "the entry, and nothing for the observer hooks")
}
