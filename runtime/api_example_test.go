package runtime_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/sentinelgen/sentinelgen/runtime"
	"github.com/sentinelgen/sentinelgen/runtime/clocktest"
)

// auditSlot is a slot of an application's own; it checks nothing.
type auditSlot struct{}

func (auditSlot) Bind(*runtime.Resource) runtime.Checker { return nil }

// The runtime's API at a glance, with the Java call each one is.
func Example_api() {
	ctx, id, origin := context.Background(), int64(7), "app-a"
	order, slot := runtime.OrderFlow+1, auditSlot{}
	var err error

	e, b := runtime.Entry(ctx, "getOrder", runtime.WithArgs(id)) // SphU.entry
	if b != nil {                                                // blocked: b.BlockType(), b.Rule(), errors.Is(b, runtime.ErrBlocked)
		fmt.Println(b.BlockType(), b.Rule(), errors.Is(b, runtime.ErrBlocked))
		return
	}
	defer e.Exit()                                       // idempotent
	e.SetError(err)                                      // Tracer.trace
	runtime.Entry(ctx, "pay", runtime.WithPrioritized()) // SphU.entryWithPriority: may wait for the next window
	ctx = runtime.EnterContext(ctx, "web", origin)       // ContextUtil.enter
	runtime.RegisterSlot("mySlot", order, slot)          // Sentinel's SPI
	runtime.SetClock(clocktest.New())                    // hand-stepped time in tests
	runtime.SetEnabled(false)                            // Constants.ON: every call passes, nothing counted
	_ = ctx
}
