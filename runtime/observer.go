package runtime

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// Observer sees protected calls as they are entered, refused and exited,
// wherever they come from: generated wrappers, the HTTP and gRPC adapters
// and the web framework adapters all open calls through Entry or Enter, so an
// Observer reaches every one of them without a change to any. It is what
// a tracing adapter registers (package sentinelotel puts refused calls on
// the caller's span); Java's counterpart is the StatisticSlot's entry and
// exit callbacks.
//
// Every call an Observer's Enter saw ends in exactly one Block or Exit, as
// long as the Observer stays registered and the entry is exited. Calls
// made while the runtime is switched off (SetEnabled) are neither checked
// nor seen.
//
// The methods run on the calling goroutine, in the call's path: they must
// be quick, must not panic, and must not keep the Call (it is valid until
// the method returns).
type Observer interface {
	// Enter sees a call before the rules check it, its context, node and
	// start time known. The context.Context it returns becomes the call's
	// (Call.Context, and what SentinelEntry.Context hands to the
	// business method): return c.Context() to leave it, or one derived
	// from it, carrying a span started for the call, say.
	Enter(c *Call) context.Context
	// Block sees a refused call once its block was counted;
	// c.BlockError() is b.
	Block(c *Call, b *BlockError)
	// Exit sees an admitted call once its exit was counted and the rules
	// released it; c.Err() is the business error recorded on it, if any.
	Exit(c *Call)
}

// observers are the registered Observers, nil when there are none: a call
// pays one atomic load and a nil check for them at entry, and one at its
// block or exit. Written copy-on-write under observersMu.
var (
	observers   atomic.Pointer[[]Observer]
	observersMu sync.Mutex
)

// AddObserver registers o; the calls entered from then on are seen by it,
// after the Observers registered before it. The returned function removes
// it again (it is idempotent); calls in flight then may miss their Block or
// Exit.
func AddObserver(o Observer) (remove func()) {
	if o == nil {
		return func() {}
	}
	observersMu.Lock()
	defer observersMu.Unlock()
	var list []Observer
	if p := observers.Load(); p != nil {
		list = slices.Clone(*p)
	}
	// A wrapper of its own makes each registration distinct, so that
	// removing one of two registrations of the same Observer removes one.
	reg := &registration{o}
	list = append(list, reg)
	observers.Store(&list)
	var once sync.Once
	return func() { once.Do(func() { removeObserver(reg) }) }
}

type registration struct{ Observer }

func removeObserver(reg *registration) {
	observersMu.Lock()
	defer observersMu.Unlock()
	p := observers.Load()
	if p == nil {
		return
	}
	list := slices.DeleteFunc(slices.Clone(*p), func(o Observer) bool { return o == Observer(reg) })
	if len(list) == 0 {
		observers.Store(nil)
		return
	}
	observers.Store(&list)
}

// The observe functions are apart from the hot path so that it stays
// small enough for the compiler to keep its common case tight.

//go:noinline
func observeEnter(c *Call, list []Observer) {
	for _, o := range list {
		if ctx := o.Enter(c); ctx != nil {
			c.ctx = ctx
		}
	}
}

//go:noinline
func observeBlock(c *Call, b *BlockError, list []Observer) {
	for _, o := range list {
		o.Block(c, b)
	}
}

//go:noinline
func observeExit(c *Call, list []Observer) {
	for _, o := range list {
		o.Exit(c)
	}
}
